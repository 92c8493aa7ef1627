/**
 * Service-token check on the API side (contract §1.5). A valid token only
 * unlocks the trusted client IP/UA and delivery payloads; it is never a route credential.
 *
 * Every request the adapter forwards carries one, so the check is synchronous
 * HMAC-SHA256 on @noble/hashes (~15 µs) instead of jose's HS256, which imports
 * a WebCrypto key and verifies asynchronously on each call (~140 µs of CPU;
 * on every request's hot path). The rules are the ones `jwtVerify` applied with the options this
 * file used to pass it — compact form, `alg` exactly HS256, the signature over
 * the first two segments, an object payload, `iss` = `svc-adapter`, `aud` =
 * (or, as an array, containing) `svc-auth-api`, `sub`/`iat`/`exp` present,
 * numeric `iat`/`exp`/`nbf`, 30 s of skew on `exp` and `nbf` — plus a strict
 * subset: no `crit` or `b64` header at all (the adapter never sends them),
 * and no `iat` beyond the skew in the future (jose checks that only with
 * `maxTokenAge`; a token minted for later is refused, contract §1.5,
 * reason `iat_future`).
 * `test/api/crypto/service-token.test.ts` runs a table of broken tokens
 * through this function and through the jose reference and expects the same answers.
 */
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { decodeJsonSegment, fromBase64Url, timingSafeEqualBytes, utf8 } from '../../common/encoding.js';
import { generationalMemo } from '../../common/memo.js';

export const SERVICE_TOKEN_ISSUER = 'svc-adapter';
export const SERVICE_TOKEN_AUDIENCE = 'svc-auth-api';
export const SERVICE_TOKEN_MAX_TTL_SECONDS = 60;
export const SERVICE_TOKEN_SKEW_SECONDS = 30;

export type ServiceTokenResult = { ok: true; sub: string } | { ok: false; reason: string };

const B64URL = /^[A-Za-z0-9_-]*$/;

const has = (o: object, k: string) => Object.hasOwn(o, k);

/** jose's claim rules for the options above; false when any fails. */
function claimsValid(claims: Record<string, unknown>, nowMs: number): boolean {
  for (const k of ['sub', 'iat', 'exp', 'iss', 'aud']) if (!has(claims, k)) return false;
  if (claims['iss'] !== SERVICE_TOKEN_ISSUER) return false;
  const aud = claims['aud'];
  if (!(aud === SERVICE_TOKEN_AUDIENCE || (Array.isArray(aud) && aud.includes(SERVICE_TOKEN_AUDIENCE)))) return false;
  if (typeof claims['iat'] !== 'number') return false;
  return inTime(claims['exp'], claims['nbf'], nowMs);
}

/** `iat` no further ahead than the skew (checked again for a remembered token: a clock may step back). */
const issuedByNow = (iat: number, nowMs: number) => iat <= Math.floor(nowMs / 1000) + SERVICE_TOKEN_SKEW_SECONDS;

/** `exp` and `nbf` against the clock, with the skew (also what a remembered token is checked against). */
function inTime(exp: unknown, nbf: unknown, nowMs: number): boolean {
  const now = Math.floor(nowMs / 1000);
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > now + SERVICE_TOKEN_SKEW_SECONDS)) return false;
  return typeof exp === 'number' && exp > now - SERVICE_TOKEN_SKEW_SECONDS;
}

/** How many verified header values are remembered per generation (two generations: at most twice this). */
export const SERVICE_TOKEN_MEMO_SIZE = 256;

interface Remembered {
  sub: string;
  iat: number;
  exp: number;
  nbf: number | undefined;
}

/**
 * The adapter reuses its proxy token for 45 s (contract §1.5), so nearly every
 * forwarded request presents a header value this process has already verified.
 * A verified value is remembered with its subject and time claims: a repeat
 * skips the base64, HMAC and JSON work, and only its `exp` and `nbf` are
 * checked again, so a remembered token still expires on time. The key is the
 * whole header value (signature included): only those exact bytes, once
 * verified, ever hit. Bounded in two generations (common/memo.ts).
 *
 * @example
 * const verify = createServiceTokenVerifier(env.secrets.serviceToken);
 * const r = await verify(c.req.header('x-svc-service-token') ?? '', Date.now());
 * if (r.ok) console.log(r.sub); // 'svc-hono-adapter'
 */
export function createServiceTokenVerifier(secret: string) {
  const key = utf8(secret);
  const memo = generationalMemo<string, Remembered>(SERVICE_TOKEN_MEMO_SIZE);

  return async function verifyServiceToken(headerValue: string, nowMs: number): Promise<ServiceTokenResult> {
    const known = memo.get(headerValue);
    if (known !== undefined) {
      // The order of the full check: exp/nbf, then iat.
      if (!inTime(known.exp, known.nbf, nowMs)) return { ok: false, reason: 'invalid' };
      return issuedByNow(known.iat, nowMs) ? { ok: true, sub: known.sub } : { ok: false, reason: 'iat_future' };
    }
    const result = verifyUncached(headerValue, nowMs);
    if (result.ok) memo.set(headerValue, result.remember);
    return result.ok ? { ok: true, sub: result.sub } : result;
  };

  function verifyUncached(
    headerValue: string,
    nowMs: number,
  ): { ok: true; sub: string; remember: Remembered } | { ok: false; reason: string } {
    const token = headerValue.replace(/^Bearer\s+/i, '').trim();
    const parts = token.split('.');
    // As jose's decodeProtectedHeader: a header is read only from a 3- (JWS) or 5-segment (JWE) token.
    const header = parts.length === 3 || parts.length === 5 ? decodeJsonSegment(parts[0]!) : null;
    if (!header) return { ok: false, reason: 'malformed' };
    if (header['alg'] !== 'HS256') return { ok: false, reason: 'alg' };
    if (parts.length !== 3 || has(header, 'crit') || has(header, 'b64')) return { ok: false, reason: 'invalid' };
    const signature = fromBase64Url(parts[2]!);
    if (!signature || !B64URL.test(parts[1]!)) return { ok: false, reason: 'invalid' };
    if (!timingSafeEqualBytes(signature, hmac(sha256, key, utf8(`${parts[0]}.${parts[1]}`))))
      return { ok: false, reason: 'invalid' };
    const claims = decodeJsonSegment(parts[1]!);
    if (!claims || !claimsValid(claims, nowMs)) return { ok: false, reason: 'invalid' };
    const { sub, iat, exp } = claims as { sub: unknown; iat: number; exp: number };
    if (!issuedByNow(iat, nowMs)) return { ok: false, reason: 'iat_future' };
    if (typeof sub !== 'string' || sub === '') return { ok: false, reason: 'sub' };
    if (exp - iat > SERVICE_TOKEN_MAX_TTL_SECONDS) return { ok: false, reason: 'lifetime' };
    return { ok: true, sub, remember: { sub, iat, exp, nbf: claims['nbf'] as number | undefined } };
  }
}
