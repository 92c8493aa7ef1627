/** Bun entry: `bun src/bun.ts`. Bun runs the same app; the socket address comes from `server.requestIP`. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createAuthApi, ConfigError, configErrorLines } from './index.js';
import { startWebhookSender } from './services/webhooks/runner.js';
import { isLoopbackListenHost } from './config/internal-host.js';
import { listenError } from './config/listen-error.js';
import { createBcryptPool } from '../common/node/bcrypt-pool.js';

declare const Bun: {
  serve(o: {
    fetch: (req: Request, server: Record<string, unknown>) => Response | Promise<Response>;
    port: number;
    hostname: string;
  }): { hostname: string; port: number };
};

const env = process.env;
const url = env['DATABASE_URL'] ?? 'file:./.data/svc.db';
if (url.startsWith('file:') && !url.startsWith('file::memory:')) mkdirSync(dirname(url.slice(5)), { recursive: true });

const hostname = env['HOST'] ?? '127.0.0.1';
try {
  const app = await createAuthApi({
    env,
    connectionIp: (c) =>
      (c.env as { requestIP?: (r: Request) => { address: string } | null })?.requestIP?.(c.req.raw)?.address,
    // Refresh-token bcrypt on worker threads, off the event loop (common/node/bcrypt-pool.ts).
    refreshTokenHasher: createBcryptPool(),
    loopbackOnly: isLoopbackListenHost(hostname),
  });
  // Event webhooks: retries and deliveries queued outside a request (docs/webhooks.md).
  startWebhookSender(app.deps);
  const port = Number(env['PORT'] ?? 8787);
  let server: { hostname: string; port: number };
  try {
    server = Bun.serve({ fetch: (req, srv) => app.fetch(req, srv), port, hostname });
  } catch (err) {
    throw listenError(hostname, port, err);
  }
  console.log(`svc auth API (bun) listening on http://${server.hostname}:${server.port}`);
} catch (err) {
  console.error(err instanceof ConfigError ? configErrorLines(err).join('\n') : err);
  process.exit(1);
}
