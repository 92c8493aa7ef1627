/**
 * Deno entry: `deno run -A --sloppy-imports src/deno.ts`. Same app; the socket address comes from `info.remoteAddr`.
 */
import { createAuthApi, ConfigError, configErrorLines } from './index.js';
import { startWebhookSender } from './services/webhooks/runner.js';
import { isLoopbackListenHost } from './config/internal-host.js';
import { listenError } from './config/listen-error.js';

declare const Deno: {
  env: { toObject(): Record<string, string> };
  mkdirSync(path: string, o: { recursive: boolean }): void;
  exit(code: number): never;
  serve(
    o: { port: number; hostname: string; onListen?: (a: { hostname: string; port: number }) => void },
    handler: (req: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>,
  ): unknown;
};

const env = Deno.env.toObject();
const url = env['DATABASE_URL'] ?? 'file:./.data/svc.db';
if (url.startsWith('file:') && !url.startsWith('file::memory:')) {
  const dir = url.slice(5).replace(/\/[^/]*$/, '');
  if (dir && dir !== url.slice(5)) Deno.mkdirSync(dir, { recursive: true });
}

const hostname = env['HOST'] ?? '127.0.0.1';
try {
  const app = await createAuthApi({
    env,
    connectionIp: (c) => (c.env as { remoteAddr?: { hostname: string } } | undefined)?.remoteAddr?.hostname,
    loopbackOnly: isLoopbackListenHost(hostname),
  });
  // Event webhooks: retries and deliveries queued outside a request (docs/webhooks.md).
  startWebhookSender(app.deps);
  const port = Number(env['PORT'] ?? 8787);
  try {
    Deno.serve(
      {
        port,
        hostname,
        onListen: ({ hostname, port }) => console.log(`svc auth API (deno) listening on http://${hostname}:${port}`),
      },
      (req, info) => app.fetch(req, info),
    );
  } catch (err) {
    throw listenError(hostname, port, err);
  }
} catch (err) {
  console.error(err instanceof ConfigError ? configErrorLines(err).join('\n') : err);
  Deno.exit(1);
}
