/**
 * CORS for direct browser callers (contract §3.0 step 1). Origins outside
 * `APP_ORIGINS` (and the API's own origin) get 403 `origin_not_allowed`.
 */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { requestHeader } from '../../common/hono-request.js';

const ALLOWED_HEADERS =
  'Authorization, Content-Type, x-svc-service-token, x-svc-client-ip, x-svc-client-user-agent, x-svc-auth-delivery-mode, Idempotency-Key, x-svc-challenge-token';
const EXPOSED_HEADERS = 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, WWW-Authenticate';

type Env = AppEnv['Variables']['deps']['env'];

/** The API's own origin plus `APP_ORIGINS`, built once per env (it is fixed for the process). */
const allowedByEnv = new WeakMap<Env, Set<string>>();
function allowedOrigins(env: Env): Set<string> {
  let allowed = allowedByEnv.get(env);
  if (!allowed) allowedByEnv.set(env, (allowed = new Set([new URL(env.issuer).origin, ...env.appOrigins])));
  return allowed;
}

export const cors = createMiddleware<AppEnv>(async (c, next) => {
  const origin = requestHeader(c, 'origin');
  if (!origin) return next();
  const { env, events } = c.get('deps');
  if (!allowedOrigins(env).has(origin)) {
    await events.record({ type: 'request_suspicious', metadata: { reason: 'cors_origin', path: c.req.path } });
    throw fail('origin_not_allowed');
  }
  if (c.req.method === 'OPTIONS' && requestHeader(c, 'access-control-request-method')) {
    return new Response(null, {
      status: 204,
      headers: {
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': 'GET, POST, PATCH, DELETE, OPTIONS',
        'Access-Control-Allow-Headers': ALLOWED_HEADERS,
        'Access-Control-Max-Age': '600',
        Vary: 'Origin',
      },
    });
  }
  await next();
  c.header('Access-Control-Allow-Origin', origin);
  c.header('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  c.header('Vary', 'Origin', { append: true });
});
