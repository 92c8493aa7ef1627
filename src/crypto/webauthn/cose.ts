/**
 * COSE public keys (RFC 9052 §7, RFC 9053, RFC 8230) and signature checks on
 * WebCrypto only — the same code on Node ≥ 20, Bun, Deno and workerd. The
 * algorithms are the three svc accepts (contract §7):
 *
 * | alg  | name  | COSE key                          | WebCrypto                          |
 * |------|-------|-----------------------------------|------------------------------------|
 * | -8   | EdDSA | kty 1 (OKP), crv 6 (Ed25519), x   | `Ed25519`, raw 32-byte key         |
 * | -7   | ES256 | kty 2 (EC2), crv 1 (P-256), x, y  | `ECDSA` P-256 / SHA-256, raw point |
 * | -257 | RS256 | kty 3 (RSA), n, e                 | `RSASSA-PKCS1-v1_5` / SHA-256, JWK |
 *
 * WebAuthn ES256 signatures are ASN.1 DER (L3 §6.5.5); WebCrypto wants the
 * fixed-size r‖s form, so they are converted first.
 */
import { toBase64Url } from '../encoding.js';
import type { CborMap } from './authenticator-data.js';
import { check, WebAuthnError } from './errors.js';

export const COSE_ALG_EDDSA = -8;
export const COSE_ALG_ES256 = -7;
export const COSE_ALG_RS256 = -257;

/** COSE_Key labels (RFC 9052 §7.1, RFC 9053 §7, RFC 8230 §4). */
const KTY = 1;
const ALG = 3;
const CRV_OR_N = -1;
const X_OR_E = -2;
const Y = -3;

/** A COSE key checked for one of the three algorithms, ready for WebCrypto. */
export type PublicKeyDescriptor =
  | { alg: typeof COSE_ALG_EDDSA; x: Uint8Array }
  | { alg: typeof COSE_ALG_ES256; x: Uint8Array; y: Uint8Array }
  | { alg: typeof COSE_ALG_RS256; n: Uint8Array; e: Uint8Array };

const bytes = (map: CborMap, label: number, what: string, length?: number): Uint8Array => {
  const v = map.get(label);
  check(v instanceof Uint8Array && v.length > 0 && (length === undefined || v.length === length), 'public_key', `COSE key ${what} is missing or has the wrong size`);
  return v;
};

/** The numeric `alg` (label 3) of a COSE key, or an `algorithm` failure. */
export function coseAlgorithm(map: CborMap): number {
  const alg = map.get(ALG);
  check(typeof alg === 'number' && Number.isInteger(alg), 'algorithm', 'COSE key has no numeric alg');
  return alg;
}

/**
 * Checks a COSE key against `allowed` algorithms and the key type, curve and
 * sizes the algorithm requires; `algorithm` or `public_key` on failure.
 */
export function describeCoseKey(map: CborMap, allowed: readonly number[]): PublicKeyDescriptor {
  const alg = coseAlgorithm(map);
  check(allowed.includes(alg), 'algorithm', 'COSE key alg is not accepted');
  const kty = map.get(KTY);
  switch (alg) {
    case COSE_ALG_EDDSA:
      check(kty === 1 && map.get(CRV_OR_N) === 6, 'algorithm', 'EdDSA key is not an Ed25519 OKP key');
      return { alg, x: bytes(map, X_OR_E, 'x', 32) };
    case COSE_ALG_ES256:
      check(kty === 2 && map.get(CRV_OR_N) === 1, 'algorithm', 'ES256 key is not a P-256 EC2 key');
      return { alg, x: bytes(map, X_OR_E, 'x', 32), y: bytes(map, Y, 'y', 32) };
    case COSE_ALG_RS256:
      check(kty === 3, 'algorithm', 'RS256 key is not an RSA key');
      return { alg, n: bytes(map, CRV_OR_N, 'n'), e: bytes(map, X_OR_E, 'e') };
    default:
      throw new WebAuthnError('algorithm', 'COSE key alg is not supported');
  }
}

/** Bits of an unsigned big-endian integer (leading zero bytes ignored). */
export function bitLength(value: Uint8Array): number {
  let i = 0;
  while (i < value.length && value[i] === 0) i++;
  if (i === value.length) return 0;
  return (value.length - i - 1) * 8 + (32 - Math.clz32(value[i]!));
}

/** A copy on a plain ArrayBuffer (what WebCrypto's BufferSource type asks for). */
const own = (b: Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(b);

const stripLeadingZeros = (v: Uint8Array): Uint8Array => {
  let i = 0;
  while (i < v.length - 1 && v[i] === 0) i++;
  return v.subarray(i);
};

/** Imports the key into WebCrypto for `verify`; a key WebCrypto refuses (e.g. a point off the curve) is `public_key`. */
export async function importPublicKey(key: PublicKeyDescriptor): Promise<CryptoKey> {
  const subtle = globalThis.crypto.subtle;
  try {
    switch (key.alg) {
      case COSE_ALG_EDDSA:
        return await subtle.importKey('raw', own(key.x), { name: 'Ed25519' }, false, ['verify']);
      case COSE_ALG_ES256: {
        const point = new Uint8Array(65);
        point[0] = 0x04; // uncompressed SEC1 point
        point.set(key.x, 1);
        point.set(key.y, 33);
        return await subtle.importKey('raw', point, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
      }
      case COSE_ALG_RS256: {
        const jwk = { kty: 'RSA', n: toBase64Url(stripLeadingZeros(key.n)), e: toBase64Url(stripLeadingZeros(key.e)), alg: 'RS256', ext: true };
        return await subtle.importKey('jwk', jwk, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['verify']);
      }
    }
  } catch {
    throw new WebAuthnError('public_key', 'WebCrypto refused the credential public key');
  }
}

/**
 * ASN.1 DER `Ecdsa-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }` → r‖s,
 * each left-padded to `size` bytes. Structure and lengths are strict; a
 * non-minimal integer encoding is tolerated (the signature check decides).
 */
export function derToRawEcdsa(der: Uint8Array, size = 32): Uint8Array {
  const fail = (): never => {
    throw new WebAuthnError('signature', 'ECDSA signature is not DER');
  };
  if (der.length < 8 || der[0] !== 0x30 || der[1]! >= 0x80 || der[1] !== der.length - 2) fail();
  const out = new Uint8Array(size * 2);
  let pointer = 2;
  for (let part = 0; part < 2; part++) {
    if (der[pointer] !== 0x02) fail();
    const length = der[pointer + 1]!;
    if (length === 0 || length >= 0x80 || pointer + 2 + length > der.length) fail();
    const value = stripLeadingZeros(der.subarray(pointer + 2, pointer + 2 + length));
    if (value.length > size) fail();
    out.set(value, part * size + size - value.length);
    pointer += 2 + length;
  }
  if (pointer !== der.length) fail();
  return out;
}

/**
 * Verifies `signature` over `data` with the COSE key: false when it does not
 * verify (a runtime that throws on, say, a wrong-length signature counts as
 * false); `WebAuthnError` for an unusable key or a non-DER ES256 signature.
 */
export async function verifySignature(key: PublicKeyDescriptor, signature: Uint8Array, data: Uint8Array): Promise<boolean> {
  const cryptoKey = await importPublicKey(key);
  const subtle = globalThis.crypto.subtle;
  const params =
    key.alg === COSE_ALG_EDDSA ? { name: 'Ed25519' } : key.alg === COSE_ALG_ES256 ? { name: 'ECDSA', hash: 'SHA-256' } : { name: 'RSASSA-PKCS1-v1_5' };
  const sig = key.alg === COSE_ALG_ES256 ? derToRawEcdsa(signature) : signature;
  try {
    return await subtle.verify(params, cryptoKey, own(sig), own(data));
  } catch {
    return false;
  }
}
