/** Node entry: `npm run api`. Configured from env (PORT, HOST, DATABASE_URL, …). */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Duplex } from 'node:stream';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { ERRORS, type ErrorCode } from './errors.js';
import { createAuthApi, ConfigError, configErrorLines } from './index.js';
import { isLoopbackListenHost } from './config/internal-host.js';
import { listenError } from './config/listen-error.js';
import type { RefreshTokenHasher } from './crypto/refresh-token.js';
import { createBcryptPool } from '../common/node/bcrypt-pool.js';
import { startWebhookSender } from './services/webhooks/runner.js';

/*
 * What Node's HTTP parser refuses before the app sees a request is answered in
 * the contract's envelope instead of Node's bare text: header
 * fields too large → 431 `headers_too_large`; headers or body not arriving in
 * time (a declared Content-Length never sent) → 408 `request_timeout`;
 * anything unparseable → 400 `invalid_request`. The socket closes after it.
 */
function codeFor(err: NodeJS.ErrnoException): ErrorCode {
  if (err.code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_HEADERS_TIMEOUT') return 'request_timeout';
  return 'invalid_request';
}

const REASONS: Partial<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** A `clientError` listener for `http.Server`. */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset or an already answered socket: nothing to say.
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const code = codeFor(err);
  const [status, message] = ERRORS[code];
  const body = JSON.stringify({ error: code, message });
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${new TextEncoder().encode(body).byteLength}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * Serves `fetch` on Node as the API's entry does: bounded request time and
 * parser refusals in the envelope. Exported for the socket-level tests.
 */
export function serveNode(
  fetch: (req: Request) => Response | Promise<Response>,
  o: { port: number; hostname: string; requestTimeoutMs: number },
) {
  const server = serve({
    fetch,
    port: o.port,
    hostname: o.hostname,
    serverOptions: {
      requestTimeout: o.requestTimeoutMs,
      headersTimeout: Math.min(o.requestTimeoutMs, 60_000),
      // How often Node looks for overdue requests (default 30 s): a tenth of the bound.
      connectionsCheckingInterval: Math.max(50, Math.floor(o.requestTimeoutMs / 10)),
    },
  });
  server.on('clientError', answerClientError);
  return server;
}

/**
 * Starts the API on Node; refresh-token bcrypt runs on a worker pool unless `refreshTokenHasher` says otherwise
 * (`npm run bench:bcrypt` compares the two).
 */
export async function startNodeApi(
  env: Record<string, string | undefined> = process.env,
  options: { refreshTokenHasher?: RefreshTokenHasher } = {},
) {
  const url = env['DATABASE_URL'] ?? 'file:./.data/svc.db';
  if (url.startsWith('file:') && !url.startsWith('file::memory:')) {
    const dir = dirname(url.slice(5));
    try {
      mkdirSync(dir, { recursive: true });
    } catch (err) {
      throw new ConfigError(
        'DATABASE_URL',
        `cannot create the database directory ${dir} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): choose a writable path`,
      );
    }
  }
  const hostname = env['HOST'] ?? '127.0.0.1';
  // Refresh-token bcrypt on worker threads, off the event loop (common/node/bcrypt-pool.ts); closed with the app.
  const pool = options.refreshTokenHasher ? undefined : createBcryptPool();
  let app: Awaited<ReturnType<typeof createAuthApi>>;
  try {
    app = await createAuthApi({
      env,
      connectionIp: (c) => getConnInfo(c).remote.address,
      refreshTokenHasher: options.refreshTokenHasher ?? pool!,
      loopbackOnly: isLoopbackListenHost(hostname),
    });
  } catch (err) {
    await pool?.close();
    throw err;
  }
  // Event webhooks: retries and deliveries queued outside a request (docs/webhooks.md).
  const webhookSender = startWebhookSender(app.deps);
  const closeApp = app.close;
  app.close = async () => {
    webhookSender.stop();
    await closeApp();
    await pool?.close();
  };
  const port = Number(env['PORT'] ?? 8787);
  // A whole request (headers and body) must arrive within this time; Node's default is 300 s,
  // so a client declaring a body it never sends held a connection for five minutes.
  const requestTimeoutMs = Number(env['HTTP_REQUEST_TIMEOUT_MS'] ?? 30_000);
  if (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs < 100)
    throw new ConfigError('HTTP_REQUEST_TIMEOUT_MS', 'must be an integer number of milliseconds, at least 100');
  const server = serveNode(app.fetch, { port, hostname, requestTimeoutMs });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', (err) => reject(listenError(hostname, port, err)));
  });
  return { app, server, url: `http://${hostname}:${port}` };
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/src/node.ts')) {
  startNodeApi().then(
    ({ url }) => console.log(`svc auth API listening on ${url}`),
    (err) => {
      console.error(err instanceof ConfigError ? configErrorLines(err).join('\n') : err);
      process.exit(1);
    },
  );
}
