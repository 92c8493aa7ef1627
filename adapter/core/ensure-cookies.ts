/**
 * ensureCookies (contract §5.6): resolves the route credential from the
 * cookies in cookie transport, refreshing transparently (through the dedup)
 * when the access cookie is not usable and a refresh cookie is.
 */
import type { AdapterCore } from './core.js';
import { decodeJsonSegment } from '../../common/encoding.js';
import { allCookieNames, refreshCookies, refreshSession } from './refresh-call.js';
import { failure, type HandlerResult, type SetCookieCommand } from './result.js';
import type { CredentialKind } from '../../common/route-table.js';
import type { ClientInfo } from './upstream.js';

/** The access cookie must outlive its inner token's `exp` by more than this to be used as is. */
export const ACCESS_MIN_REMAINING_SECONDS = 5;

export type EnsureOutcome =
  | { ok: true; token: string | null; sub: string | null; setCookies: SetCookieCommand[] }
  | { ok: false; result: HandlerResult };

const innerExpCache = new WeakMap<object, number>();

/** `exp` of the RS256 token inside an access cookie, decoded without verifying (cached per verified cookie). */
export function innerTokenExp(claims: { token: string }): number {
  let exp = innerExpCache.get(claims);
  if (exp === undefined) {
    const payload = decodeJsonSegment(claims.token.split('.')[1] ?? '');
    exp = typeof payload?.['exp'] === 'number' ? payload['exp'] : 0;
    innerExpCache.set(claims, exp);
  }
  return exp;
}

const unauthorized = (message: string, clearCookies?: string[]) =>
  failure(401, 'unauthorized', message, clearCookies?.length ? { clearCookies } : {});

export async function ensureCookies(
  core: AdapterCore,
  cred: CredentialKind,
  cookies: Record<string, string>,
  client: ClientInfo,
): Promise<EnsureOutcome> {
  const { names } = core.opts;
  const nowMs = core.now();
  if (cred === 'none') return { ok: true, token: null, sub: null, setCookies: [] };

  if (cred === 'pre' || cred === 'reg') {
    const name = cred === 'pre' ? names.preAuth : names.registration;
    const message = cred === 'pre' ? 'Pre-auth session required' : 'Registration session required';
    const raw = cookies[name];
    if (raw === undefined) return { ok: false, result: unauthorized(message) };
    const claims = core.codec.verify(raw, 'ephemeral', nowMs);
    if (!claims || typeof claims.token !== 'string' || typeof claims.sub !== 'string')
      return { ok: false, result: unauthorized(message, [name]) };
    return { ok: true, token: claims.token, sub: claims.sub, setCookies: [] };
  }

  if (cred === 'refresh') {
    const claims = core.codec.verify(cookies[names.refresh], 'refresh', nowMs);
    if (!claims || typeof claims.refreshToken !== 'string')
      return { ok: false, result: unauthorized('Refresh token required') };
    return { ok: true, token: claims.refreshToken, sub: claims.sub, setCookies: [] };
  }

  const access = core.codec.verify(cookies[names.access], 'access', nowMs);
  if (
    access &&
    typeof access.token === 'string' &&
    innerTokenExp(access) - ACCESS_MIN_REMAINING_SECONDS > nowMs / 1000
  ) {
    return { ok: true, token: access.token, sub: access.sub, setCookies: [] };
  }
  const refresh = core.codec.verify(cookies[names.refresh], 'refresh', nowMs);
  if (!refresh || typeof refresh.refreshToken !== 'string') {
    const present = [names.access, names.refresh].filter((n) => cookies[n] !== undefined);
    return { ok: false, result: unauthorized('Access session required', present) };
  }
  const value = await refreshSession(core, refresh.refreshToken, client);
  if (value.kind === 'failed') {
    if (value.upstreamStatus === 401)
      return { ok: false, result: { ...value.result, clearCookies: allCookieNames(core) } };
    return { ok: false, result: value.result };
  }
  if (value.envelope['sub'] !== refresh.sub) return { ok: false, result: failure(502, 'invalid_upstream_response') };
  return {
    ok: true,
    token: value.envelope['token'] as string,
    sub: refresh.sub,
    setCookies: refreshCookies(core, value),
  };
}
