/**
 * Guards for application routes (contract §5.9), as Express middleware:
 * `requireAuth` (stateless: never calls the API, never refreshes) sets
 * `req.user`; `requireRole` authorizes; `getUser(req, opts)` loads `Me`.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { parseCookieHeader, readCookie } from '../core/cookies.js';
import { createAdapterCore } from '../core/core.js';
import type { Me } from '../../common/contract.js';
import { getUserWith, requiredRoles, roleFailure } from '../core/guards.js';
import type { SvcAdapterOptions } from '../core/options.js';
import { createAuthGuard, type AuthResult, type RequireAuthOptions } from '../core/user.js';
import { clientIpOf } from '../core/wire.js';
import { clientPlace, defaultClientIp, header } from './request.js';
import { sendJson } from './respond.js';
import './types.js';

const INTERNAL = { error: 'internal_error', message: 'Internal server error' };

/**
 * Verifies the access cookie (or, when `authServerUrl` + `audience` are given
 * and no cookie is present, an `Authorization: Bearer` access token) and sets
 * `req.user`. 401 when there is no credential or it is invalid.
 *
 * @example
 * app.get('/app', requireAuth({ cookieSecret: process.env.COOKIE_SECRET! }), (req, res) => res.json({ hello: req.user!.email }));
 */
export function requireAuth(opts: RequireAuthOptions): RequestHandler {
  const guard = createAuthGuard(opts, 'requireAuth');
  const settle = (result: AuthResult, req: Request, res: Response, next: NextFunction) => {
    if (!result.ok) return sendJson(res, result.failure.status, result.failure.body);
    req.user = result.user;
    next();
  };
  return (req, res, next) => {
    // The cookie path answers synchronously; only a request without the cookie waits for the bearer check.
    let byCookie: AuthResult | undefined;
    try {
      byCookie = guard.fromCookie(readCookie(header(req, 'cookie'), guard.cookieName));
    } catch {
      return sendJson(res, 500, INTERNAL);
    }
    if (byCookie !== undefined) return settle(byCookie, req, res, next);
    guard.fromBearer(header(req, 'authorization')).then(
      (result) => settle(result, req, res, next),
      () => sendJson(res, 500, INTERNAL),
    );
  };
}

/**
 * Authorizes only; runs after `requireAuth`. Any-of over the required roles
 * with the scoped-role rules (`admin` ⊇ `admin:write` ⊇ `admin:read`).
 *
 * @example
 * app.get('/admin', requireAuth(auth), requireRole('admin:read'), handler);
 */
export function requireRole(required: string | string[]): RequestHandler {
  const list = requiredRoles(required);
  return (req, res, next) => {
    const refused = roleFailure(req.user, list);
    if (refused) return sendJson(res, refused.status, refused.body);
    next();
  };
}

/**
 * Loads the signed-in user's profile (`Me`) from the API with whichever
 * credential the request has (the token `requireAuth` resolved, the access
 * cookie, or a verified bearer). Null when there is none or the API refuses.
 *
 * @example
 * app.get('/profile', async (req, res) => res.json({ me: await getUser(req, adapterOptions) }));
 */
export async function getUser(req: Request, opts: SvcAdapterOptions): Promise<Me | null> {
  const core = createAdapterCore(opts, 'svc-express-adapter', 'getUser');
  return getUserWith(core, {
    resolvedToken: req.user?.token,
    cookies: parseCookieHeader(header(req, 'cookie')),
    authorization: header(req, 'authorization'),
    client: {
      ip: clientIpOf(core.opts, req, defaultClientIp),
      userAgent: header(req, 'user-agent'),
      geo: clientPlace(req, core.opts),
    },
  });
}
