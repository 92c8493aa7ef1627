/**
 * The provider's client-facing endpoints (docs/oauth-provider.md), which the
 * adapter forwards as is: `POST /oauth2/token`, `GET|POST /oauth2/userinfo`,
 * `POST /oauth2/revoke`, `POST /oauth2/introspect`. They answer in the RFCs'
 * format (`{error, error_description}`), never cached.
 */
import { type Context, Hono } from 'hono';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { bearerToken } from '../middleware/auth.js';
import { RawBody } from '../middleware/body.js';
import { enabledProvider } from '../services/oauth-server/config.js';
import { parseForm } from '../services/oauth-server/form.js';
import { introspect } from '../services/oauth-server/introspection.js';
import { NO_STORE_HEADERS, OAuthError, oauthError } from '../services/oauth-server/oauth-error.js';
import { revokeToken } from '../services/oauth-server/revocation.js';
import { tokenEndpoint } from '../services/oauth-server/token-endpoint.js';
import { userinfo } from '../services/oauth-server/userinfo.js';
import { requestHeader } from '../../common/hono-request.js';

/** Token requests per client IP per 15 minutes (a failed client authentication counts too). */
export const TOKEN_REQUESTS_PER_IP = 600;
const WINDOW_MS = 15 * 60_000;

async function tokenLimit(c: Context<AppEnv>): Promise<void> {
  const { limiter, clock, log } = c.get('deps');
  if (limiter.disabled) return;
  let decision;
  try {
    decision = await limiter.hit(
      `oauth_token:ip:${c.get('client').ipKey ?? 'unknown'}`,
      TOKEN_REQUESTS_PER_IP,
      WINDOW_MS,
      clock.now(),
    );
  } catch (err) {
    // Fails closed like the per-flow limiters.
    log.log('error', 'oauth token limiter unavailable; failing closed', { error: (err as Error).message });
    throw fail('rate_limited', undefined, { retryAfterSeconds: 60 }, { 'Retry-After': '60' });
  }
  if (!decision.allowed) {
    const retryAfterSeconds = Math.max(1, decision.resetSeconds);
    throw fail('rate_limited', undefined, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
  }
}

function form(c: Context<AppEnv>): URLSearchParams {
  const body = c.get('body');
  const text = body instanceof RawBody ? body.text : body === undefined ? '' : null;
  if (text === null) throw oauthError('invalid_request', 'The body must be application/x-www-form-urlencoded');
  return parseForm(requestHeader(c, 'content-type'), text);
}

/** Runs an endpoint, rendering an `OAuthError` in the RFC format; svc envelopes (404 disabled, 429) pass through. */
async function endpoint(c: Context<AppEnv>, run: () => Promise<Record<string, unknown> | null>): Promise<Response> {
  try {
    const body = await run();
    return c.json(body ?? {}, 200, NO_STORE_HEADERS);
  } catch (err) {
    if (err instanceof OAuthError) return c.json(err.body(), err.status, { ...NO_STORE_HEADERS, ...err.headers });
    throw err;
  }
}

async function userinfoHandler(c: Context<AppEnv>) {
  const deps = c.get('deps');
  const cfg = await enabledProvider(deps);
  return endpoint(c, async () => userinfo(deps, cfg, bearerToken(requestHeader(c, 'authorization'))));
}

export const oauthServerTokenRoutes = new Hono<AppEnv>()
  .post('/oauth2/token', async (c) => {
    const deps = c.get('deps');
    const cfg = await enabledProvider(deps);
    await tokenLimit(c);
    return endpoint(c, async () => {
      const body = await tokenEndpoint(deps, cfg, requestHeader(c, 'authorization'), form(c), c.get('client'));
      return { ...body };
    });
  })
  .get('/oauth2/userinfo', userinfoHandler)
  .post('/oauth2/userinfo', userinfoHandler)
  .post('/oauth2/revoke', async (c) => {
    const deps = c.get('deps');
    const cfg = await enabledProvider(deps);
    await tokenLimit(c);
    return endpoint(c, async () => {
      await revokeToken(deps, cfg, requestHeader(c, 'authorization'), form(c), c.get('client'));
      return null;
    });
  })
  .post('/oauth2/introspect', async (c) => {
    const deps = c.get('deps');
    const cfg = await enabledProvider(deps);
    return endpoint(c, async () => introspect(deps, cfg, requestHeader(c, 'authorization'), form(c)));
  });
