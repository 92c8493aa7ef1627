/**
 * A bounded memo of API tokens whose signature already verified:
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
import { generationalMemo, type GenerationalMemo } from '../../common/memo.js';

/** Tokens remembered per key set and issuer, per generation (at most twice this: tokens live 15 minutes). */
const GENERATION = 5_000;
/** Key set → issuer → memo keyed by the token itself (no per-lookup key string to build and hash). */
const byKeys = new WeakMap<KeyStore, Map<string, GenerationalMemo<string, JWTPayload>>>();

/** The time-based checks jose applies (with the same skew), for a payload that verified earlier. */
export function stillCurrent(payload: JWTPayload, nowMs: number, skewSeconds: number): boolean {
  const now = Math.floor(nowMs / 1000);
  if (typeof payload.exp !== 'number' || payload.exp <= now - skewSeconds) return false;
  if (typeof payload.nbf === 'number' && payload.nbf > now + skewSeconds) return false;
  return typeof payload.iat === 'number' && payload.iat <= now + skewSeconds;
}

export function rememberedPayload(keys: KeyStore, issuer: string, token: string): JWTPayload | undefined {
  return byKeys.get(keys)?.get(issuer)?.get(token);
}

/** How many tokens are remembered for a key set (tests and diagnostics). */
export function rememberedCount(keys: KeyStore): number {
  let count = 0;
  for (const memo of byKeys.get(keys)?.values() ?? []) count += memo.size;
  return count;
}

export function rememberPayload(keys: KeyStore, issuer: string, token: string, payload: JWTPayload): void {
  let issuers = byKeys.get(keys);
  if (!issuers) byKeys.set(keys, (issuers = new Map()));
  let memo = issuers.get(issuer);
  if (!memo) issuers.set(issuer, (memo = generationalMemo(GENERATION)));
  memo.set(token, Object.freeze(payload));
}
