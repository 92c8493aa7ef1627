/**
 * Registration verification (WebAuthn L3 §7.1) for svc's attestation policy:
 * svc requests `attestation: "none"` and keeps no trust anchors, so the
 * attestation statement is never a reason to trust a credential.
 *
 * - `none`: the statement must be empty (WebAuthn L3 §8.7).
 * - `packed` without `x5c` (self attestation, L3 §8.2): its signature over
 *   `authData ‖ clientDataHash` is verified with the credential key itself,
 *   whose alg it must name.
 * - Formats that carry a certificate chain (`packed` with `x5c`, `fido-u2f`,
 *   `tpm`, `android-key`, `android-safetynet`, `apple`): the statement's shape
 *   is checked, the chain is NOT — the credential is registered as
 *   *uncertified*, which is what L3 §7.1 ("if permitted by policy … treat the
 *   credential as one with self attestation") and L3 §6.5.4 allow: nothing is
 *   claimed about the authenticator's make or model. See docs/passkeys.md.
 * - Any other `fmt` is refused.
 */
import { toBase64Url, toHex } from '../encoding.js';
import { concatBytes, decodeB64url, isCborMap, parseAttestationObject, parseAuthenticatorData, decodeCoseKeyMap, type CborMap } from './authenticator-data.js';
import { checkAuthenticatorData, checkClientData, checkCredentialEnvelope, type CeremonyExpectations } from './ceremony.js';
import { bitLength, describeCoseKey, importPublicKey, verifySignature, type PublicKeyDescriptor } from './cose.js';
import { check, WebAuthnError } from './errors.js';
import type { CredentialDeviceType, RegistrationResponseJSON } from './types.js';

/** `none`: no statement; `self`: verified packed self attestation; `uncertified`: a chain that was not evaluated. */
export type AttestationTrust = 'none' | 'self' | 'uncertified';

export interface RegistrationExpectations extends CeremonyExpectations {
  /** COSE algorithms accepted for the credential key (svc: -8, -7, -257). */
  algorithms: readonly number[];
}

export interface VerifiedRegistration {
  /** base64url of the credential id in the attested credential data (equal to `rawId`). */
  credentialId: string;
  /** The COSE_Key bytes, stored base64url in `credentials.public_key`. */
  publicKey: Uint8Array;
  alg: number;
  counter: number;
  /** Lower-case UUID form; informational only (not authenticated without a verified chain). */
  aaguid: string;
  fmt: string;
  attestation: AttestationTrust;
  deviceType: CredentialDeviceType;
  backedUp: boolean;
}

/** RSA keys below 2048 bits are refused at registration (keys stored earlier still verify). */
export const MIN_RSA_MODULUS_BITS = 2048;

const X5C_FORMATS = new Set(['packed', 'fido-u2f', 'tpm', 'android-key', 'apple']);

const formatUuid = (aaguid: Uint8Array): string => {
  const h = toHex(aaguid);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/** A non-empty array of DER certificates (byte strings). */
const isCertChain = (v: unknown): boolean => Array.isArray(v) && v.length > 0 && v.every((c) => c instanceof Uint8Array && c.length > 0);

/**
 * Classifies (and where possible verifies) the attestation statement; throws
 * `attestation` for an unknown format or a statement that is wrong for it.
 */
async function assessAttestation(fmt: string, attStmt: CborMap, key: PublicKeyDescriptor, signed: Uint8Array): Promise<AttestationTrust> {
  if (fmt === 'none') {
    check(attStmt.size === 0, 'attestation', 'none attestation carries a statement');
    return 'none';
  }
  if (fmt === 'packed' && !attStmt.has('x5c')) {
    const sig = attStmt.get('sig');
    check(sig instanceof Uint8Array, 'attestation', 'packed attestation has no signature');
    check(attStmt.get('alg') === key.alg, 'attestation', 'packed self attestation alg differs from the credential key');
    check(await verifySignature(key, sig, signed).catch(() => false), 'attestation', 'packed self attestation signature does not verify');
    return 'self';
  }
  if (fmt === 'android-safetynet') {
    check(typeof attStmt.get('ver') === 'string' && attStmt.get('response') instanceof Uint8Array, 'attestation', 'android-safetynet statement is malformed');
    return 'uncertified';
  }
  if (X5C_FORMATS.has(fmt)) {
    check(isCertChain(attStmt.get('x5c')), 'attestation', 'attestation statement has no certificate chain');
    return 'uncertified';
  }
  throw new WebAuthnError('attestation', 'unsupported attestation format');
}

/**
 * Verifies a registration response; returns the credential to store or throws
 * `WebAuthnError` whose `reason` names the first rule that failed.
 */
export async function verifyRegistration(response: RegistrationResponseJSON, expected: RegistrationExpectations): Promise<VerifiedRegistration> {
  checkCredentialEnvelope(response);
  const { clientDataHash } = checkClientData(response.response?.clientDataJSON, 'webauthn.create', expected);
  const { fmt, attStmt, authData: rawAuthData } = parseAttestationObject(decodeB64url(response.response.attestationObject, 'attestationObject'));
  const authData = parseAuthenticatorData(rawAuthData);
  const { deviceType, backedUp } = checkAuthenticatorData(authData, expected);

  const attested = authData.attested;
  check(attested, 'malformed', 'registration carries no attested credential data');
  const credentialId = toBase64Url(attested.credentialId);
  check(credentialId === response.rawId, 'credential_id', 'credential id in authenticator data differs from rawId');

  const coseMap = decodeCoseKeyMap(attested.publicKey);
  const key = describeCoseKey(coseMap, expected.algorithms);
  if (key.alg === -257) check(bitLength(key.n) >= MIN_RSA_MODULUS_BITS, 'public_key', 'RSA modulus is shorter than 2048 bits');
  await importPublicKey(key); // refuses keys WebCrypto cannot use (e.g. an EC point off the curve)

  check(isCborMap(attStmt), 'malformed', 'attStmt is not a map');
  const attestation = await assessAttestation(fmt, attStmt, key, concatBytes(rawAuthData, clientDataHash));

  return {
    credentialId,
    publicKey: attested.publicKey,
    alg: key.alg,
    counter: authData.counter,
    aaguid: formatUuid(attested.aaguid),
    fmt,
    attestation,
    deviceType,
    backedUp,
  };
}
