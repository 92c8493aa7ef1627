/**
 * Authentication (assertion) verification (WebAuthn L3 §7.2) against a stored
 * credential: the shared ceremony checks, then the signature over
 * `authenticatorData ‖ SHA-256(clientDataJSON)` with the stored COSE key.
 *
 * The signature-counter rule is the caller's (svc: a non-zero stored counter
 * must increase, `src/services/webauthn/assertion.ts`); this returns the
 * counter the authenticator reported.
 */
import { concatBytes, decodeB64url, decodeCoseKeyMap, parseAuthenticatorData } from './authenticator-data.js';
import { checkAuthenticatorData, checkClientData, checkCredentialEnvelope, type CeremonyExpectations } from './ceremony.js';
import { coseAlgorithm, describeCoseKey, verifySignature } from './cose.js';
import { check } from './errors.js';
import type { AuthenticationResponseJSON, CredentialDeviceType } from './types.js';

export interface AuthenticationExpectations extends CeremonyExpectations {
  /** The stored COSE_Key bytes (`credentials.public_key`, base64url-decoded). */
  publicKey: Uint8Array;
}

export interface VerifiedAuthentication {
  counter: number;
  userVerified: boolean;
  deviceType: CredentialDeviceType;
  backedUp: boolean;
}

/**
 * Verifies an assertion; throws `WebAuthnError` whose `reason` names the first
 * rule that failed (`signature` when the signature does not verify).
 */
export async function verifyAuthentication(response: AuthenticationResponseJSON, expected: AuthenticationExpectations): Promise<VerifiedAuthentication> {
  checkCredentialEnvelope(response);
  const { clientDataHash } = checkClientData(response.response?.clientDataJSON, 'webauthn.get', expected);
  const rawAuthData = decodeB64url(response.response.authenticatorData, 'authenticatorData');
  const authData = parseAuthenticatorData(rawAuthData);
  const { deviceType, backedUp } = checkAuthenticatorData(authData, expected);

  const signature = decodeB64url(response.response.signature, 'signature');
  // The stored key was checked at registration; its own alg decides how to verify.
  const coseMap = decodeCoseKeyMap(expected.publicKey);
  const key = describeCoseKey(coseMap, [coseAlgorithm(coseMap)]);
  check(await verifySignature(key, signature, concatBytes(rawAuthData, clientDataHash)), 'signature', 'assertion signature does not verify');
  return { counter: authData.counter, userVerified: authData.flags.uv, deviceType, backedUp };
}
