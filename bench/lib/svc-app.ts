/**
 * The app process of `npm run bench:peers`: a Hono app with `svcAdapter` at
 * `/auth` (talking to the API process over loopback) and a `requireAuth`
 * route, on Node (`node --import tsx`) or Bun (`bun`). Codes the adapter
 * delivers are kept in memory for the load generator (`GET /bench/otp`).
 * Written as the README's quickstart: no `fetch` option. On Node it imports
 * the entry the package's `node` export condition resolves `svc-auth/hono` to,
 * so the adapter reaches the API through the default `nodeUpstreamFetch`;
 * `UPSTREAM_FETCH=global` passes Node's global `fetch` explicitly to compare.
 * Bun gets the neutral entry, as the package resolves it there, and its own
 * `fetch`.
 * `EMBED_API=1` instead builds the API inside this process from this process's environment (`createAuthApi` from
 * `svc-auth/api`, its refresh-token bcrypt on the worker pool as the entries do) and passes the adapter a `fetch`
 * that calls it directly: one process, no HTTP hop (docs/deploying.md#one-process-the-api-inside-your-app).
 *   API_URL=http://127.0.0.1:8787 PORT=0 node --import tsx bench/lib/svc-app.ts
 */
import { Hono } from 'hono';
import { BENCH_APP_ORIGIN, BENCH_COOKIE_SECRET, benchEnv } from './svc.js';

const embedApi = process.env['EMBED_API'] === '1';
// Embedded, the URL only names the API for the adapter (its `fetch` never opens a socket).
const apiUrl = embedApi ? benchEnv.ISSUER : process.env['API_URL'];
if (!apiUrl) throw new Error('API_URL is required');
const port = Number(process.env['PORT'] ?? 0);
const outbox = new Map<string, string>();
const bun = (
  globalThis as { Bun?: { serve(o: { fetch: typeof app.fetch; port: number; hostname: string }): { port: number } } }
).Bun;
const { requireAuth, svcAdapter } = bun
  ? await import('../../adapter/hono/index.js')
  : await import('../../adapter/hono/node.js');
const globalUpstream = !bun && process.env['UPSTREAM_FETCH'] === 'global';
const embeddedFetch = embedApi ? await embeddedApiFetch() : undefined;

/** The API in this process, reached without a socket: what `fetch: (input, init) => api.fetch(…)` gives an app. */
async function embeddedApiFetch(): Promise<(input: string, init?: RequestInit) => Promise<Response>> {
  const { createAuthApi } = await import('../../src/index.js');
  const { createBcryptPool } = await import('../../common/node/bcrypt-pool.js');
  const api = await createAuthApi({ env: process.env, refreshTokenHasher: createBcryptPool() });
  return async (input, init) => api.fetch(new Request(input, init));
}

const app = new Hono();
app.route(
  '/auth',
  svcAdapter({
    authServerUrl: apiUrl,
    audience: benchEnv.ISSUER,
    cookieSecret: BENCH_COOKIE_SECRET,
    serviceSecret: benchEnv.API_SERVICE_TOKEN,
    issuer: BENCH_APP_ORIGIN,
    ...(globalUpstream ? { fetch: (input: string, init?: RequestInit) => globalThis.fetch(input, init) } : {}),
    ...(embeddedFetch ? { fetch: embeddedFetch } : {}),
    log: () => {},
    messaging: {
      handlers: {
        otpEmail: async (m) => {
          if (m.code) outbox.set(m.to, m.code);
        },
        magicLinkEmail: async () => {},
      },
    },
  }),
);
app.get('/guarded', requireAuth({ cookieSecret: BENCH_COOKIE_SECRET, issuer: BENCH_APP_ORIGIN }), (c) =>
  c.json({ ok: true }),
);
app.get('/bench/ping', (c) => c.json({ ok: true })); // no auth: the app's own ceiling
// The hop alone: one call to the API's cheapest route over the transport the adapter uses by default
// (Bun's fetch; on Node the `nodeUpstreamFetch` the `node` entry installs), no auth and no database: what
// any route through both processes pays before it does anything, so "who am I" can at best reach it.
const hopFetch =
  bun || globalUpstream ? globalThis.fetch : (await import('../../adapter/node/index.js')).nodeUpstreamFetch();
app.get('/bench/hop', async (c) => {
  const res = await hopFetch(`${apiUrl}/health/status`);
  return c.json(await res.json(), res.status as 200);
});
app.get('/bench/otp', (c) => {
  const email = c.req.query('email') ?? '';
  const code = outbox.get(email) ?? null;
  outbox.delete(email);
  return c.json({ code });
});

if (bun) {
  console.log(`listening on http://127.0.0.1:${bun.serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }).port}`);
} else {
  const { serve } = await import('@hono/node-server');
  serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) =>
    console.log(
      `listening on http://127.0.0.1:${info.port} (upstream: ${embedApi ? 'the API in this process' : globalUpstream ? 'global fetch' : 'nodeUpstreamFetch, the default'})`,
    ),
  );
}
