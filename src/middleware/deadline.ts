/**
 * Per-request deadline: a request still unanswered after
 * `REQUEST_DEADLINE_MS` gets 503 `service_unavailable` with `Retry-After`,
 * whatever it waits on (a wedged database, a slow sender). The work goes on in
 * the background and its late result is dropped; every multi-statement write
 * is one batch, so it lands whole or not at all, and the client's retry with
 * the same input is safe (refresh included: a retry with the same
 * `Idempotency-Key` inside `refresh_reuse_grace_seconds` is a fresh rotation,
 * docs/configuration.md).
 */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../deps.js';
import { ERRORS } from '../errors.js';

export const DEADLINE_RETRY_AFTER_SECONDS = 1;

export function requestDeadline(deadlineMs: number) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (deadlineMs <= 0) return next();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => resolve('expired'), deadlineMs);
    });
    const work = next().then(() => 'done' as const);
    const outcome = await Promise.race([work, expired]);
    clearTimeout(timer);
    if (outcome === 'done') return;
    work.catch(() => {}); // a late failure has no one to answer
    c.get('deps').log.log('warn', 'request deadline passed; answered 503', {
      method: c.req.method,
      path: c.req.path,
      deadlineMs,
    });
    const [status, message] = ERRORS.service_unavailable;
    c.res = new Response(
      JSON.stringify({ error: 'service_unavailable', message, retryAfterSeconds: DEADLINE_RETRY_AFTER_SECONDS }),
      {
        status,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'retry-after': String(DEADLINE_RETRY_AFTER_SECONDS),
          'cache-control': 'no-store',
        },
      },
    );
  });
}
