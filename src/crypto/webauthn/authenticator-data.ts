/**
 * Decoding of the binary WebAuthn structures (WebAuthn L3 §6.1, §6.5): the
 * attestation object, authenticator data with its attested credential data
 * and extensions, and `clientDataJSON`. CBOR itself is decoded by
 * `@levischuck/tiny-cbor` (the decoder `@simplewebauthn/server` uses); this
 * module only walks the fixed-layout parts and bounds-checks every length.
 * Every failure is a `WebAuthnError('malformed')`.
 */
import { decodeCBOR, decodePartialCBOR, type CBORType } from '@levischuck/tiny-cbor';
import { fromBase64Url, fromUtf8 } from '../encoding.js';
import { check, WebAuthnError } from './errors.js';

/** WebAuthn L3 §6.1 flag bits. */
export const FLAG_UP = 0x01;
export const FLAG_UV = 0x04;
export const FLAG_BE = 0x08;
export const FLAG_BS = 0x10;
export const FLAG_AT = 0x40;
export const FLAG_ED = 0x80;

/** L3 §6.5.1: a credential id is at most 1023 bytes. */
const MAX_CREDENTIAL_ID_BYTES = 1023;

export type CborMap = Map<string | number, CBORType>;

export interface AttestedCredentialData {
  aaguid: Uint8Array;
  credentialId: Uint8Array;
  /** The COSE_Key exactly as the authenticator encoded it (what `credentials.public_key` stores). */
  publicKey: Uint8Array;
}

export interface AuthenticatorData {
  rpIdHash: Uint8Array;
  flags: { up: boolean; uv: boolean; be: boolean; bs: boolean; at: boolean; ed: boolean };
  counter: number;
  attested: AttestedCredentialData | null;
  /** Authenticator extension outputs (CBOR map), when the ED flag is set. */
  extensions: CborMap | null;
}

export interface AttestationObject {
  fmt: string;
  attStmt: CborMap;
  /** The raw authenticator data (signed over by `packed` self-attestation). */
  authData: Uint8Array;
}

export interface ClientData {
  type: string;
  challenge: string;
  origin: string;
}

export const isCborMap = (v: unknown): v is CborMap => v instanceof Map;

/** `a ‖ b` as a new array. */
export function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Decodes base64url, mapping a bad encoding to `malformed`. */
export function decodeB64url(value: unknown, what: string): Uint8Array {
  check(typeof value === 'string' && value.length > 0, 'malformed', `${what} is missing`);
  try {
    return fromBase64Url(value);
  } catch {
    throw new WebAuthnError('malformed', `${what} is not base64url`);
  }
}

/**
 * Runs the CBOR decoder on a private copy (tiny-cbor reads `data.buffer` from
 * offset 0, so a view into a larger buffer would be misread) and maps any
 * decoder error — including a stack overflow on absurd nesting — to `malformed`.
 */
function cbor<T>(bytes: Uint8Array, what: string, run: (copy: Uint8Array) => T): T {
  try {
    return run(bytes.slice());
  } catch (err) {
    if (err instanceof WebAuthnError) throw err;
    throw new WebAuthnError('malformed', `${what} is not well-formed CBOR`);
  }
}

/** One CBOR item at `offset`; returns it and the offset after it (never past the end). */
function cborItemAt(bytes: Uint8Array, offset: number, what: string): [CBORType, number] {
  return cbor(bytes, what, (copy) => {
    const [value, length] = decodePartialCBOR(copy, offset);
    // tiny-cbor truncates an over-long byte string silently; its declared length still counts here.
    check(length > 0 && offset + length <= copy.length, 'malformed', `${what} runs past the end of the data`);
    return [value, offset + length];
  });
}

/** Parses authenticator data (L3 §6.1); trailing bytes are refused. */
export function parseAuthenticatorData(authData: Uint8Array): AuthenticatorData {
  check(authData.length >= 37, 'malformed', 'authenticator data is shorter than 37 bytes');
  const f = authData[32]!;
  const flags = { up: !!(f & FLAG_UP), uv: !!(f & FLAG_UV), be: !!(f & FLAG_BE), bs: !!(f & FLAG_BS), at: !!(f & FLAG_AT), ed: !!(f & FLAG_ED) };
  const counter = new DataView(authData.buffer, authData.byteOffset, authData.byteLength).getUint32(33, false);
  let pointer = 37;

  let attested: AttestedCredentialData | null = null;
  if (flags.at) {
    check(authData.length >= pointer + 18, 'malformed', 'attested credential data is truncated');
    const aaguid = authData.slice(pointer, pointer + 16);
    const idLength = (authData[pointer + 16]! << 8) | authData[pointer + 17]!;
    pointer += 18;
    check(idLength > 0 && idLength <= MAX_CREDENTIAL_ID_BYTES, 'malformed', 'credential id length is out of range');
    check(authData.length >= pointer + idLength, 'malformed', 'credential id is truncated');
    const credentialId = authData.slice(pointer, pointer + idLength);
    pointer += idLength;
    const [key, end] = cborItemAt(authData, pointer, 'credential public key');
    check(isCborMap(key), 'malformed', 'credential public key is not a CBOR map');
    attested = { aaguid, credentialId, publicKey: authData.slice(pointer, end) };
    pointer = end;
  }

  let extensions: CborMap | null = null;
  if (flags.ed) {
    const [ext, end] = cborItemAt(authData, pointer, 'authenticator extensions');
    check(isCborMap(ext), 'malformed', 'authenticator extensions are not a CBOR map');
    extensions = ext;
    pointer = end;
  }

  check(pointer === authData.length, 'malformed', 'authenticator data has leftover bytes');
  return { rpIdHash: authData.slice(0, 32), flags, counter, attested, extensions };
}

/** Decodes a CBOR-encoded COSE_Key (as stored) into its map. */
export function decodeCoseKeyMap(bytes: Uint8Array): CborMap {
  const key = cbor(bytes, 'credential public key', (copy) => decodeCBOR(copy));
  check(isCborMap(key), 'malformed', 'credential public key is not a CBOR map');
  return key;
}

/** Decodes the attestation object (L3 §6.5.4): `{fmt: tstr, attStmt: map, authData: bstr}`. */
export function parseAttestationObject(bytes: Uint8Array): AttestationObject {
  const decoded = cbor(bytes, 'attestation object', (copy) => decodeCBOR(copy));
  check(isCborMap(decoded), 'malformed', 'attestation object is not a CBOR map');
  const fmt = decoded.get('fmt');
  const attStmt = decoded.get('attStmt');
  const authData = decoded.get('authData');
  check(typeof fmt === 'string' && fmt.length > 0, 'malformed', 'attestation object has no fmt');
  check(isCborMap(attStmt), 'malformed', 'attestation object has no attStmt map');
  check(authData instanceof Uint8Array, 'malformed', 'attestation object has no authData');
  return { fmt, attStmt, authData };
}

const TOKEN_BINDING_STATUSES = ['present', 'supported', 'not-supported', 'notSupported'];

/** Parses `clientDataJSON` (L3 §5.8.1): `type`, `challenge` and `origin` strings, a sane `tokenBinding` if any. */
export function parseClientData(clientDataJSON: Uint8Array): ClientData {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromUtf8(clientDataJSON));
  } catch {
    throw new WebAuthnError('malformed', 'clientDataJSON is not JSON');
  }
  check(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed), 'malformed', 'clientDataJSON is not an object');
  const { type, challenge, origin, tokenBinding } = parsed as Record<string, unknown>;
  check(typeof type === 'string', 'malformed', 'clientDataJSON.type is not a string');
  check(typeof challenge === 'string', 'malformed', 'clientDataJSON.challenge is not a string');
  check(typeof origin === 'string', 'malformed', 'clientDataJSON.origin is not a string');
  if (tokenBinding !== undefined && tokenBinding !== null) {
    check(typeof tokenBinding === 'object', 'malformed', 'clientDataJSON.tokenBinding is not an object');
    check(TOKEN_BINDING_STATUSES.includes((tokenBinding as { status?: unknown }).status as string), 'malformed', 'clientDataJSON.tokenBinding.status is unknown');
  }
  return { type, challenge, origin };
}
