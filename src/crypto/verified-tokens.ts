/**
 * A bounded memo of API tokens whose signature already verified (issue #17):
 * the RS256 check through WebCrypto was the largest single cost of
 * `/users/me` once the queries were prepared (~18% of its CPU). Only a
 * success is remembered, keyed by the exact token string (signature
 * included), the issuer it was checked against and the key set; every hit
 * rechecks the time-based claims against the current clock (exp, nbf, a
 * future iat), so an expired token fails exactly as it would uncached. The
 * session and user behind an access token are still read on every request,
 * so revocation is unaffected.
 */
import type { JWTPayload } from 'jose';
import type { KeyStore } from './keys.js';

const MAX_ENTRIES = 10_000;
/**
 * Two generations of half the size each: a full `current` becomes `previous`
 * (dropping the older half at once), so the oldest tokens still go first but
 * every operation is O(1). Dropping one entry per insert from a full Map cost
 * a scan over the deleted slots at its head on every sign-in (issue #17).
 */
const GENERATION = MAX_ENTRIES / 2;
interface Memo {
  current: Map<string, JWTPayload>;
  previous: Map<string, JWTPayload>;
}
/** Key set → issuer → memo keyed by the token itself (no per-lookup key string to build and hash). */
const byKeys = new WeakMap<KeyStore, Map<string, Memo>>();

const memoOf = (keys: KeyStore, issuer: string): Memo | undefined => byKeys.get(keys)?.get(issuer);

/** The time-based checks jose applies (with the same skew), for a payload that verified earlier. */
export function stillCurrent(payload: JWTPayload, nowMs: number, skewSeconds: number): boolean {
  const now = Math.floor(nowMs / 1000);
  if (typeof payload.exp !== 'number' || payload.exp <= now - skewSeconds) return false;
  if (typeof payload.nbf === 'number' && payload.nbf > now + skewSeconds) return false;
  return typeof payload.iat === 'number' && payload.iat <= now + skewSeconds;
}

export function rememberedPayload(keys: KeyStore, issuer: string, token: string): JWTPayload | undefined {
  const memo = memoOf(keys, issuer);
  return memo && (memo.current.get(token) ?? memo.previous.get(token));
}

/** How many tokens are remembered for a key set (tests and diagnostics). */
export function rememberedCount(keys: KeyStore): number {
  let count = 0;
  for (const memo of byKeys.get(keys)?.values() ?? []) count += memo.current.size + memo.previous.size;
  return count;
}

export function rememberPayload(keys: KeyStore, issuer: string, token: string, payload: JWTPayload): void {
  let issuers = byKeys.get(keys);
  if (!issuers) byKeys.set(keys, (issuers = new Map()));
  let memo = issuers.get(issuer);
  if (!memo) issuers.set(issuer, (memo = { current: new Map(), previous: new Map() }));
  if (memo.current.size >= GENERATION) {
    memo.previous = memo.current; // oldest first: tokens live 15 minutes
    memo.current = new Map();
  }
  memo.current.set(token, Object.freeze(payload));
}
