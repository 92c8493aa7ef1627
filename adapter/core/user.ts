/**
 * The authenticated user of `requireAuth` (contract §5.9) and the user loader
 * of `getUser`. `createAuthGuard` is shared by the Hono and Express guards.
 */
import type { JWTPayload } from 'jose';
import type { Me } from '../../common/contract.js';
import { createCookieCodec } from './cookies.js';
import type { AdapterCore } from './core.js';
import { defaultFetch } from './default-fetch.js';
import { isObject } from './handlers/forward.js';
import { createJwksVerifier, type JwksVerifier } from './jwks.js';
import { checkSecret, stripTrailingSlash, type FetchLike } from './options.js';
import type { ClientInfo } from './upstream.js';

/** `c.get('user')` / `req.user`. Bearer-path users have no `email`/`phone`. */
export interface AuthUser {
  id: string;
  sub: string;
  roles: string[];
  email?: string;
  phone?: string | null;
  organizationId: string | null;
  sessionId: string;
  iat?: number;
  exp?: number;
  /** The RS256 access token (for calls to the API on the user's behalf). */
  token: string;
}

export interface RequireAuthOptions {
  /** ≥ 32 characters; the adapter's `cookieSecret`. */
  cookieSecret: string;
  /** Default `svc-access`; must match the adapter's `accessCookieName`. */
  cookieName?: string;
  /** When set, the cookie's `iss` must equal it. */
  issuer?: string;
  /** With `audience`, enables `Authorization: Bearer` access tokens (verified against the API's JWKS). */
  authServerUrl?: string;
  /** The API's ISSUER; required together with `authServerUrl`. */
  audience?: string;
  /** For the JWKS calls. Default: the adapter's (`node:http` on Node, `globalThis.fetch` elsewhere). */
  fetch?: FetchLike;
  /** Time source in ms (tests). */
  now?: () => number;
}

export type AuthFailure =
  | { status: 401; body: { error: 'unauthorized'; message: string } }
  | { status: 502; body: { error: 'upstream_unavailable'; message: string } };

export type AuthResult = { ok: true; user: AuthUser } | { ok: false; failure: AuthFailure };

export interface AuthGuard {
  /** The access cookie's name (`cookieName`, default `svc-access`). */
  readonly cookieName: string;
  /**
   * The access cookie's answer, synchronously (no promise on the hot path);
   * `undefined` when there is no cookie, and only then may a bearer token be tried.
   */
  fromCookie(value: string | undefined): AuthResult | undefined;
  /** A bearer access token when configured (`authServerUrl` + `audience`); for requests without the cookie. */
  fromBearer(authorization: string | undefined): Promise<AuthResult>;
  /** The cookie when present (an invalid one is refused, never bypassed), else the bearer token. */
  authenticate(cookies: Record<string, string>, authorization: string | undefined): Promise<AuthResult>;
}

const NO_CREDENTIAL: AuthFailure = { status: 401, body: { error: 'unauthorized', message: 'Authentication required' } };
const INVALID: AuthFailure = { status: 401, body: { error: 'unauthorized', message: 'Invalid or expired session' } };
const JWKS_DOWN: AuthFailure = {
  status: 502,
  body: { error: 'upstream_unavailable', message: 'Auth server unreachable' },
};

export const bearerFrom = (authorization: string | undefined): string | null =>
  /^Bearer +(\S+)\s*$/i.exec(authorization?.trim() ?? '')?.[1] ?? null;

/** Maps verified access-token claims to the bearer-path user. */
export function userFromAccessClaims(claims: JWTPayload, token: string): AuthUser | null {
  if (claims['typ'] !== 'access' || typeof claims.sub !== 'string') return null;
  return {
    id: claims.sub,
    sub: claims.sub,
    roles: Array.isArray(claims['roles']) ? (claims['roles'] as string[]) : [],
    organizationId: (claims['org_id'] as string | undefined) ?? null,
    sessionId: claims['sid'] as string,
    iat: claims.iat,
    exp: claims.exp,
    token,
  };
}

/**
 * Builds the stateless guard: the cookie wins when present (an invalid cookie
 * is rejected, not bypassed); otherwise a bearer access token when configured.
 */
export function createAuthGuard(opts: RequireAuthOptions, label = 'requireAuth'): AuthGuard {
  if (!opts || typeof opts !== 'object') throw new Error(`${label}: options are required`);
  const secret = checkSecret(opts.cookieSecret, 'cookieSecret', label);
  const hasUrl = opts.authServerUrl !== undefined;
  const hasAudience = opts.audience !== undefined;
  if (hasUrl !== hasAudience) throw new Error(`${label}: authServerUrl and audience must be given together`);
  if (hasUrl && (!opts.authServerUrl || !opts.audience))
    throw new Error(`${label}: authServerUrl and audience must not be empty`);
  const name = opts.cookieName ?? 'svc-access';
  const now = opts.now ?? Date.now;
  const codec = createCookieCodec(secret, opts.issuer);
  let jwks: JwksVerifier | null = null;
  if (hasUrl) {
    const fetchFn = opts.fetch ?? defaultFetch;
    jwks = createJwksVerifier({
      authServerUrl: stripTrailingSlash(opts.authServerUrl!),
      audience: stripTrailingSlash(opts.audience!),
      fetch: fetchFn,
      now,
    });
  }
  function fromCookie(raw: string | undefined): AuthResult | undefined {
    if (raw === undefined) return undefined;
    const c = codec.verify(raw, 'access', now());
    if (!c || typeof c.sub !== 'string' || typeof c.token !== 'string') return { ok: false, failure: INVALID };
    const user: AuthUser = {
      id: c.sub,
      sub: c.sub,
      roles: Array.isArray(c.roles) ? c.roles : [],
      email: c.email,
      phone: c.phone ?? null,
      organizationId: c.organizationId ?? null,
      sessionId: c.sessionId,
      iat: c['iat'] as number | undefined,
      exp: c['exp'] as number | undefined,
      token: c.token,
    };
    return { ok: true, user };
  }

  async function fromBearer(authorization: string | undefined): Promise<AuthResult> {
    const bearer = jwks ? bearerFrom(authorization) : null;
    if (!jwks || !bearer) return { ok: false, failure: NO_CREDENTIAL };
    const verified = await jwks.verify(bearer);
    if (!verified.ok) return { ok: false, failure: verified.error === 'unavailable' ? JWKS_DOWN : INVALID };
    const user = userFromAccessClaims(verified.value, bearer);
    return user ? { ok: true, user } : { ok: false, failure: INVALID };
  }

  return {
    cookieName: name,
    fromCookie,
    fromBearer,
    async authenticate(cookies, authorization) {
      return fromCookie(cookies[name]) ?? fromBearer(authorization);
    },
  };
}

/**
 * `GET /users/me` with the proxy service token (contract §5.9). Null for a
 * non-2xx answer or a network failure (logged); never throws for HTTP outcomes.
 */
export async function loadUser(core: AdapterCore, accessToken: string, client: ClientInfo): Promise<Me | null> {
  const res = await core.call({ method: 'GET', path: '/users/me', authorization: `Bearer ${accessToken}`, client });
  if (!res.ok) {
    core.opts.log('error', 'svc adapter: getUser could not reach the auth API');
    return null;
  }
  if (res.status !== 200 || !isObject(res.body) || !isObject(res.body['user'])) return null;
  return res.body['user'] as unknown as Me;
}

/** Resolves the access token for getUser from the cookie or a verified bearer (contract §5.9 steps 2–3). */
export async function accessTokenFor(
  core: AdapterCore,
  cookies: Record<string, string>,
  authorization: string | undefined,
): Promise<string | null> {
  const c = core.codec.verify(cookies[core.opts.names.access], 'access', core.now());
  if (c && typeof c.token === 'string') return c.token;
  const bearer = bearerFrom(authorization);
  if (!bearer) return null;
  const verified = await core.jwks.verify(bearer);
  return verified.ok && userFromAccessClaims(verified.value, bearer) ? bearer : null;
}
