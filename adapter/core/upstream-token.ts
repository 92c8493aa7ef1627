/**
 * Checks of the RS256 tokens the API hands back (contract §5.4 step 1):
 * signature and claims through the JWKS, then `typ`, `sub`, `sid` and `ctx`.
 */
import type { JWTPayload } from 'jose';
import type { AdapterCore } from './core.js';
import { failure, type HandlerResult } from './result.js';

export interface TokenExpectation {
  typ: 'access' | 'ephemeral';
  sub?: unknown;
  sid?: unknown;
  ctx?: 'login' | 'registration' | 'mfa';
}

/** Verifies `token` or returns the 502 the adapter answers (`upstream_unavailable` when the JWKS cannot be fetched). */
export async function verifyUpstreamToken(
  core: AdapterCore,
  token: unknown,
  expect: TokenExpectation,
): Promise<{ ok: true; claims: JWTPayload } | { ok: false; result: HandlerResult }> {
  const invalid = { ok: false as const, result: failure(502, 'invalid_upstream_response') };
  if (typeof token !== 'string' || !token) return invalid;
  const verified = await core.jwks.verify(token);
  if (!verified.ok)
    return verified.error === 'unavailable' ? { ok: false, result: failure(502, 'upstream_unavailable') } : invalid;
  const claims = verified.value;
  if (claims['typ'] !== expect.typ || typeof claims.sub !== 'string') return invalid;
  if ('sub' in expect && claims.sub !== expect.sub) return invalid;
  if ('sid' in expect && claims['sid'] !== expect.sid) return invalid;
  if (expect.ctx && claims['ctx'] !== expect.ctx) return invalid;
  return { ok: true, claims };
}

/** `ttl`/`refreshTtl`: integers > 0; numeric strings accepted (contract §5.4 step 2). */
export function positiveSeconds(value: unknown): number | null {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value.trim()) : value;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : null;
}
