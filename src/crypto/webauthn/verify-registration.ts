/**
 * Registration verification (WebAuthn L3 §7.1) by `@simplewebauthn/server`'s
 * `verifyRegistrationResponse`, plus svc's own policy on its result:
 *
 * - the challenge is compared in constant time (the library calls our
 *   comparator instead of its `!==`);
 * - the credential id in the attested credential data must be the response's
 *   `rawId` (the library returns the former without comparing) and at most
 *   1023 bytes long (L3 §7.1; the library does not bound it);
 * - the key's type and curve must be the ones its `alg` names (Ed25519 OKP for
 *   -8, P-256 EC2 for -7, RSA for -257), RSA moduli have at least 2048 bits,
 *   and WebCrypto must accept the key, so no unusable key is ever stored;
 * - the attestation statement is verified by the library for every format it
 *   knows (`none`, `packed` self and full, `fido-u2f`, `tpm`, `android-key`,
 *   `android-safetynet`, `apple`) with no trust anchors: svc asks for `none`
 *   and attestation grants nothing (docs/passkeys.md), and with anchors the
 *   library downloads the CRL URL named in each certificate the client sends
 *   (a request to any URL a signed-in user chooses).
 *
 * Failures are `WebAuthnError` with a short reason (`errors.ts`).
 */
import { SettingsService, verifyRegistrationResponse } from '@simplewebauthn/server';
import {
  cose,
  decodeAttestationObject,
  decodeCredentialPublicKey,
  verifySignature,
} from '@simplewebauthn/server/helpers';
import { fromBase64Url, timingSafeEqual } from '../../../common/encoding.js';
import { check, reasonOf, WebAuthnError } from './errors.js';
import type { CredentialDeviceType, RegistrationResponseJSON } from './types.js';

/** `none`: no statement; `self`: a packed self attestation; `chain`: a certificate chain the library verified. */
export type AttestationTrust = 'none' | 'self' | 'chain';

/** What the relying party expects of a registration. */
export interface RegistrationExpectations {
  /** The challenge as issued (base64url string, compared in constant time). */
  challenge: string;
  /** Accepted `clientDataJSON.origin` values, exact match (web and `android:apk-key-hash:` origins). */
  origins: readonly string[];
  /** The RP ID whose SHA-256 must be the authenticator data's `rpIdHash`. */
  rpId: string;
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
  /** Lower-case UUID form; informational only (svc keeps no attestation trust anchors). */
  aaguid: string;
  fmt: string;
  attestation: AttestationTrust;
  deviceType: CredentialDeviceType;
  backedUp: boolean;
}

/** WebAuthn L3 §6.5.1, §7.1: a credential id is at most 1023 bytes. */
const MAX_CREDENTIAL_ID_BYTES = 1023;

/** RSA keys below 2048 bits are refused at registration (keys stored earlier still verify). */
export const MIN_RSA_MODULUS_BITS = 2048;

/** The key type and curve each accepted `alg` requires (RFC 9053 §2, RFC 8230 §2, RFC 8037 §3.1). */
const KEY_SHAPES: Record<number, { kty: number; crv?: number }> = {
  [cose.COSEALG.EdDSA]: { kty: cose.COSEKTY.OKP, crv: cose.COSECRV.ED25519 },
  [cose.COSEALG.ES256]: { kty: cose.COSEKTY.EC2, crv: cose.COSECRV.P256 },
  [cose.COSEALG.RS256]: { kty: cose.COSEKTY.RSA },
};

/** The formats the library ships default roots for; without roots it builds no chain and fetches no CRL. */
const FORMATS_WITH_DEFAULT_ROOTS = ['android-key', 'android-safetynet', 'apple'] as const;

/**
 * Empties the library's default trust anchors. `SettingsService` is the
 * library's process-wide setting, so this runs before every verification:
 * nothing else in the process can turn the CRL downloads back on for svc.
 */
function withoutTrustAnchors(): void {
  for (const identifier of FORMATS_WITH_DEFAULT_ROOTS)
    SettingsService.setRootCertificates({ identifier, certificates: [] });
}

/** A well-formed DER ECDSA signature (r = s = 1): lets `verifySignature` import the key without a real signature. */
const PROBE_EC_SIGNATURE = Uint8Array.of(0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01);

const bitLength = (value: Uint8Array): number => {
  let i = 0;
  while (i < value.length && value[i] === 0) i++;
  return i === value.length ? 0 : (value.length - i - 1) * 8 + (32 - Math.clz32(value[i]!));
};

/** svc's key policy on the COSE key the library accepted: shape for its alg, RSA size, usable by WebCrypto. */
async function checkKeyPolicy(publicKey: Uint8Array<ArrayBuffer>, alg: number): Promise<void> {
  const key = decodeCredentialPublicKey(publicKey) as unknown as Map<number, unknown>;
  const shape = KEY_SHAPES[alg];
  check(shape && key.get(cose.COSEKEYS.kty) === shape.kty, 'algorithm', 'COSE key type does not match its alg');
  check(
    shape.crv === undefined || key.get(cose.COSEKEYS.crv) === shape.crv,
    'algorithm',
    'COSE key curve does not match its alg',
  );
  let rsaModulusBytes = 0;
  if (alg === cose.COSEALG.RS256) {
    const n = key.get(cose.COSEKEYS.n);
    check(
      n instanceof Uint8Array && bitLength(n) >= MIN_RSA_MODULUS_BITS,
      'public_key',
      'RSA modulus is shorter than 2048 bits',
    );
    rsaModulusBytes = Math.ceil(bitLength(n) / 8);
  }
  // The library imports the key to verify; a key WebCrypto refuses (a point off the curve, a short coordinate)
  // throws. The probe signature has the algorithm's size, so a runtime that
  // throws on a wrong size cannot refuse a good key.
  const signature =
    alg === cose.COSEALG.ES256 ? PROBE_EC_SIGNATURE : new Uint8Array(alg === cose.COSEALG.EdDSA ? 64 : rsaModulusBytes);
  try {
    await verifySignature({ signature, data: new Uint8Array(32), credentialPublicKey: publicKey });
  } catch {
    throw new WebAuthnError('public_key', 'WebCrypto refused the credential public key');
  }
}

/**
 * What the library verified of the statement (it has already refused anything
 * else). A packed self attestation must name the credential key's own alg
 * (L3 §8.2 verification step 3): the library verifies the signature with the
 * credential key but does not compare the two.
 */
function attestationTrust(fmt: string, attestationObject: Uint8Array<ArrayBuffer>, alg: number): AttestationTrust {
  if (fmt === 'none') return 'none';
  const attStmt = decodeAttestationObject(attestationObject).get('attStmt');
  if (fmt !== 'packed' || attStmt.get('x5c')) return 'chain';
  check(attStmt.get('alg') === alg, 'attestation', 'packed self attestation alg differs from the credential key');
  return 'self';
}

/**
 * Verifies a registration response; returns the credential to store or throws
 * `WebAuthnError` whose `reason` names the rule that failed.
 */
export async function verifyRegistration(
  response: RegistrationResponseJSON,
  expected: RegistrationExpectations,
): Promise<VerifiedRegistration> {
  let result: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  withoutTrustAnchors();
  try {
    result = await verifyRegistrationResponse({
      response: response as Parameters<typeof verifyRegistrationResponse>[0]['response'],
      expectedChallenge: (challenge: string) => timingSafeEqual(challenge, expected.challenge),
      expectedOrigin: [...expected.origins],
      expectedRPID: expected.rpId,
      requireUserPresence: true,
      requireUserVerification: true,
      supportedAlgorithmIDs: [...expected.algorithms],
    });
  } catch (err) {
    throw new WebAuthnError(reasonOf(err, 'attestation'), 'registration did not verify');
  }
  check(result.verified, 'attestation', 'the attestation statement did not verify');
  const info = result.registrationInfo;
  check(
    info.credential.id === response.rawId,
    'credential_id',
    'credential id in authenticator data differs from rawId',
  );
  check(
    (fromBase64Url(info.credential.id)?.length ?? Infinity) <= MAX_CREDENTIAL_ID_BYTES,
    'credential_id',
    'credential id is longer than 1023 bytes',
  );

  const publicKey = info.credential.publicKey;
  const alg = decodeCredentialPublicKey(publicKey).get(cose.COSEKEYS.alg);
  check(typeof alg === 'number', 'algorithm', 'COSE key has no numeric alg');
  await checkKeyPolicy(publicKey, alg);

  return {
    credentialId: info.credential.id,
    publicKey,
    alg,
    counter: info.credential.counter,
    aaguid: info.aaguid,
    fmt: info.fmt,
    attestation: attestationTrust(info.fmt, info.attestationObject, alg),
    deviceType: info.credentialDeviceType,
    backedUp: info.credentialBackedUp,
  };
}
