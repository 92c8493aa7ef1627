/**
 * The Express side of the adapter harness: the same mount as `honoMount`
 * (adapter at `/auth`, TOTP bridge at `/auth/totp`, guarded `/app`, `/admin`,
 * `/profile`), served by a real `http.Server` on an ephemeral loopback port and
 * driven with `fetch`. No error handler is installed, so anything that reached
 * Express's default one would show up as its HTML page.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import {
  getUser,
  requireAuth,
  requireRole,
  svcExpressAdapter,
  svcExpressTotpBridge,
} from '../../../adapter/express/index.js';
import { makeHarness, type Driver, type Harness, type Mount } from '../helpers.js';

const open = new Set<Server>();

export async function listen(app: express.Express): Promise<{ server: Server; base: string }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.add(server);
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Closes every server the tests opened (afterEach/afterAll). */
export async function closeServers(): Promise<void> {
  const servers = [...open];
  open.clear();
  await Promise.all(
    servers.map((s) => {
      s.closeAllConnections();
      return new Promise<void>((resolve) => s.close(() => resolve()));
    }),
  );
}

/** JSON written by hand, as Hono's `c.json` writes it (no charset), so fall-through answers compare equal too. */
const json = (res: express.Response, status: number, body: unknown) =>
  res.status(status).setHeader('content-type', 'application/json').end(JSON.stringify(body));

export const expressMount: Mount = async (opts, guard): Promise<Driver> => {
  const app = express();
  app.use('/auth', svcExpressAdapter(opts));
  app.use('/auth/totp', svcExpressTotpBridge(opts));
  const auth = requireAuth(guard);
  app.get('/app', auth, (req, res) => json(res, 200, { user: req.user }));
  app.get('/admin', auth, requireRole('admin:read'), (_req, res) => json(res, 200, { ok: true }));
  app.get('/profile', async (req, res) => json(res, 200, { me: await getUser(req, opts) }));
  app.use((_req, res) => json(res, 404, { error: 'not_found' }));
  const { server, base } = await listen(app);
  return {
    request: (path, init) => fetch(base + path, init),
    close: async () => {
      server.closeAllConnections();
      open.delete(server);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

export const makeExpressHarness = (...[over, apiEnv, api]: Parameters<typeof makeHarness>): Promise<Harness> =>
  makeHarness(over, apiEnv, { ...api, mount: expressMount });
