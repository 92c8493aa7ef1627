/**
 * Adapter cookies (contract §5.4): HS256 JWTs signed with `cookieSecret`,
 * `iss` = `issuer`, `exp` = `iat + Max-Age`, and a `kind` claim. A cookie that
 * fails any check is treated as absent.
 *
 * Hot path: verification is synchronous (see `hs256.ts`) and a bounded memo
 * (`memo.ts`) remembers cookie values whose signature and issuer already
 * verified, so a repeat costs one Map lookup and a string comparison. `exp` and `kind` are checked on every read,
 * cached or not, so a cached cookie still expires on time.
 */
import type { CookieKind, CookiePayload } from '../../common/contract.js';
import { utf8 } from '../../common/encoding.js';
import { signHs256, verifyHs256Signature, type JwtClaims } from './hs256.js';
import { generationalMemo } from '../../common/memo.js';
import type { CookieAttributes } from './options.js';

export const COOKIE_SKEW_SECONDS = 30;
/** Remembered cookie values per generation (common/memo.ts: at most twice this). */
const CACHE_GENERATION = 5_000;

interface CacheEntry {
  /** The whole cookie value that verified: a hit must be these exact bytes. */
  value: string;
  claims: JwtClaims;
}

/**
 * The memo is keyed by the signature segment (43 characters) rather than the
 * whole ~1–2 KB value: a Map lookup hashes its key, and a fresh header string
 * is hashed anew on every request (~2 µs for the whole value on Node). The hit
 * then compares the whole value with the one that verified.
 */
const signatureOf = (value: string): string => value.slice(value.lastIndexOf('.') + 1);

export interface CookieCodec {
  /** Signs a cookie value for `payload` valid `maxAge` seconds from `nowMs`. */
  sign(payload: CookiePayload, maxAge: number, nowMs: number): string;
  /** Returns the claims of a valid cookie of `kind`, or null (treated as absent). */
  verify<K extends CookieKind>(
    value: string | undefined,
    kind: K,
    nowMs: number,
  ): (Extract<CookiePayload, { kind: K }> & JwtClaims) | null;
}

/** Time, issuer and kind checks shared by the fast path and the jose reference path. */
export function claimsAcceptable(
  claims: JwtClaims,
  kind: CookieKind,
  issuer: string | undefined,
  nowMs: number,
): boolean {
  const now = Math.floor(nowMs / 1000);
  if (typeof claims['exp'] !== 'number' || claims['exp'] + COOKIE_SKEW_SECONDS <= now) return false;
  if (typeof claims['nbf'] === 'number' && claims['nbf'] - COOKIE_SKEW_SECONDS > now) return false;
  if (issuer !== undefined && claims['iss'] !== issuer) return false;
  return claims['kind'] === kind;
}

/**
 * @param issuer the expected `iss`; `undefined` skips the issuer check
 *   (`requireAuth` without `issuer`, contract §5.9).
 */
export function createCookieCodec(secret: string, issuer: string | undefined): CookieCodec {
  const key = utf8(secret);
  const cache = generationalMemo<string, CacheEntry>(CACHE_GENERATION);

  return {
    sign(payload, maxAge, nowMs) {
      const iat = Math.floor(nowMs / 1000);
      return signHs256(key, { ...payload, iss: issuer, iat, exp: iat + maxAge });
    },
    verify(value, kind, nowMs) {
      if (!value) return null;
      const signature = signatureOf(value);
      const hit = cache.get(signature);
      let claims = hit !== undefined && hit.value === value ? hit.claims : undefined;
      if (!claims) {
        const verified = verifyHs256Signature(key, value);
        if (!verified || (issuer !== undefined && verified['iss'] !== issuer)) return null;
        claims = verified;
        if (claimsAcceptable(claims, claims['kind'] as CookieKind, issuer, nowMs))
          cache.set(signature, { value, claims });
      }
      return claimsAcceptable(claims, kind, issuer, nowMs) ? (claims as never) : null;
    },
  };
}

const EPOCH = 'Thu, 01 Jan 1970 00:00:00 GMT';

function attributes(attrs: CookieAttributes): string {
  const sameSite = attrs.sameSite === 'none' ? 'None' : attrs.sameSite === 'strict' ? 'Strict' : 'Lax';
  return `; HttpOnly${attrs.secure ? '; Secure' : ''}; SameSite=${sameSite}`;
}

/**
 * `Set-Cookie` value for a signed cookie (contract §5.4 "Attributes on set").
 *
 * @example
 * serializeCookie('svc-access', jwt, 900, { secure: false, sameSite: 'lax', domain: undefined }, Date.now());
 * // 'svc-access=<jwt>; Max-Age=900; Path=/; Expires=…; HttpOnly; SameSite=Lax'
 */
export function serializeCookie(
  name: string,
  value: string,
  maxAge: number,
  attrs: CookieAttributes,
  nowMs: number,
): string {
  const expires = new Date(nowMs + maxAge * 1000).toUTCString();
  return `${name}=${value}; Max-Age=${maxAge}${attrs.domain ? `; Domain=${attrs.domain}` : ''}; Path=/; Expires=${expires}${attributes(attrs)}`;
}

/**
 * `Set-Cookie` value that clears `name`: same Path/Domain/Secure/SameSite,
 * empty value, Max-Age=0, Expires at the epoch.
 */
export function serializeClearCookie(name: string, attrs: CookieAttributes): string {
  return `${name}=; Max-Age=0${attrs.domain ? `; Domain=${attrs.domain}` : ''}; Path=/; Expires=${EPOCH}${attributes(attrs)}`;
}

/** Parses a `Cookie` request header; the first occurrence of a name wins. */
export function parseCookieHeader(header: string | null | undefined): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!name || name in out) continue;
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    out[name] = value;
  }
  return out;
}

/**
 * One cookie of a `Cookie` header, as `parseCookieHeader(header)[name]` reads
 * it (first occurrence, trimmed, one pair of quotes removed), without
 * splitting the whole header: the guard reads one cookie per request.
 *
 * @example
 * readCookie('a=1; svc-access="x.y.z"', 'svc-access'); // 'x.y.z'
 */
export function readCookie(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (let start = 0; start < header.length; ) {
    let end = header.indexOf(';', start);
    if (end === -1) end = header.length;
    const eq = header.indexOf('=', start);
    if (eq > start && eq < end && header.slice(start, eq).trim() === name) {
      const value = header.slice(eq + 1, end).trim();
      return value.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1) : value;
    }
    start = end + 1;
  }
  return undefined;
}
