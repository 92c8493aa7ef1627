/**
 * Synchronous HS256 JWT signing and verification with @noble/hashes.
 *
 * Why not jose here: jose's HS256 goes through async WebCrypto (~73 µs per
 * verify on Node 20), which alone would cost a `requireAuth`-guarded route most
 * of its throughput (docs/performance.md). A synchronous HMAC-SHA256 costs
 * ~10–20 µs. The rules are the strict subset jose applies: compact form,
 * `alg` exactly `HS256`, no `crit`/`b64` header, an object payload, numeric
 * `exp` (required) and numeric `iat`/`nbf` when present. `test/adapter/core/cookies.test.ts`
 * runs the same bad-token table through this path and through jose.
 */
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { decodeJsonSegment, fromBase64Url, timingSafeEqualBytes, toBase64Url, utf8 } from '../../common/encoding.js';

export type JwtClaims = Record<string, unknown>;

const HEADER = toBase64Url(utf8(JSON.stringify({ alg: 'HS256', typ: 'JWT' })));

/** Signs `claims` as a compact HS256 JWT with the given header fields. */
export function signHs256(key: Uint8Array, claims: JwtClaims, header?: Record<string, unknown>): string {
  const head = header ? toBase64Url(utf8(JSON.stringify({ alg: 'HS256', typ: 'JWT', ...header }))) : HEADER;
  const input = `${head}.${toBase64Url(utf8(JSON.stringify(claims)))}`;
  return `${input}.${toBase64Url(hmac(sha256, key, utf8(input)))}`;
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * Verifies signature and structure only (no time or issuer checks). Returns the
 * payload or null. The signature is checked before the payload is parsed.
 */
export function verifyHs256Signature(key: Uint8Array, token: string): JwtClaims | null {
  const first = token.indexOf('.');
  const second = token.indexOf('.', first + 1);
  if (first <= 0 || second <= first + 1 || token.indexOf('.', second + 1) !== -1) return null;
  const header = decodeJsonSegment(token.slice(0, first));
  if (header?.['alg'] !== 'HS256' || 'crit' in header || 'b64' in header) return null;
  const sig = fromBase64Url(token.slice(second + 1));
  if (sig?.length !== 32) return null;
  if (!timingSafeEqualBytes(sig, hmac(sha256, key, utf8(token.slice(0, second))))) return null;
  const payload = decodeJsonSegment(token.slice(first + 1, second));
  if (!payload || !isNum(payload['exp'])) return null;
  if ('iat' in payload && !isNum(payload['iat'])) return null;
  if ('nbf' in payload && !isNum(payload['nbf'])) return null;
  return payload;
}
