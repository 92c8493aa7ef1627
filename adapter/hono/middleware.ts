/**
 * Guards for application routes (contract §5.9): `requireAuth` (stateless:
 * never calls the API, never refreshes), `requireRole`, and `getUser`.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { parseCookieHeader, readCookie } from '../core/cookies.js';
import { createAdapterCore } from '../core/core.js';
import type { Me } from '../../common/contract.js';
import { getUserWith, requiredRoles, roleFailure } from '../core/guards.js';
import type { SvcAdapterOptions } from '../core/options.js';
import { createAuthGuard, type AuthUser, type RequireAuthOptions } from '../core/user.js';
import { clientIpOf } from '../core/wire.js';
import { clientPlace, defaultClientIp } from './request.js';
import { requestHeader } from '../../common/hono-request.js';

/** Context variables set by the guards: `c.get('user')`. */
export type SvcVariables = {
  user: AuthUser;
};

/**
 * Verifies the access cookie (or, when `authServerUrl` + `audience` are given
 * and no cookie is present, an `Authorization: Bearer` access token) and sets
 * `c.get('user')`. 401 when there is no credential or it is invalid.
 *
 * @example
 * app.get('/app', requireAuth({ cookieSecret: process.env.COOKIE_SECRET! }), (c) => c.text(`hello ${c.get('user').email}`));
 */
export function requireAuth(opts: RequireAuthOptions): MiddlewareHandler<{ Variables: SvcVariables }> {
  const guard = createAuthGuard(opts, 'requireAuth');
  return async (c, next) => {
    // The cookie path is synchronous; only a request without the cookie awaits the bearer check.
    const result =
      guard.fromCookie(readCookie(requestHeader(c, 'cookie'), guard.cookieName)) ??
      (await guard.fromBearer(requestHeader(c, 'authorization')));
    if (!result.ok) return c.json(result.failure.body, result.failure.status);
    c.set('user', result.user);
    await next();
  };
}

/**
 * Authorizes only; runs after `requireAuth`. Any-of over the required roles
 * with the scoped-role rules (`admin` ⊇ `admin:write` ⊇ `admin:read`).
 *
 * @example
 * app.get('/admin', requireAuth(auth), requireRole('admin:read'), handler);
 */
export function requireRole(required: string | string[]): MiddlewareHandler<{ Variables: SvcVariables }> {
  const list = requiredRoles(required);
  return async (c, next) => {
    const refused = roleFailure(c.get('user') as AuthUser | undefined, list);
    if (refused) return c.json(refused.body, refused.status);
    await next();
  };
}

/**
 * Loads the signed-in user's profile (`Me`) from the API with whichever
 * credential the request has (the token `requireAuth` resolved, the access
 * cookie, or a verified bearer). Null when there is none or the API refuses.
 *
 * @example
 * app.get('/profile', async (c) => c.json({ me: await getUser(c, adapterOptions) }));
 */
export async function getUser(c: Context, opts: SvcAdapterOptions): Promise<Me | null> {
  const core = createAdapterCore(opts, 'svc-hono-adapter', 'getUser');
  return getUserWith(core, {
    resolvedToken: (c.get('user') as AuthUser | undefined)?.token,
    cookies: parseCookieHeader(requestHeader(c, 'cookie')),
    authorization: requestHeader(c, 'authorization'),
    client: {
      ip: clientIpOf(core.opts, c, defaultClientIp),
      userAgent: requestHeader(c, 'user-agent'),
      geo: clientPlace(c, core.opts),
    },
  });
}
