/**
 * Authentication (assertion) verification (WebAuthn L3 §7.2) by
 * `@simplewebauthn/server`'s `verifyAuthenticationResponse` against a stored
 * credential: client data, RP ID hash, UP and UV (always required), backup
 * flags and the signature with the stored COSE key.
 *
 * The signature-counter rule is the caller's (svc: a non-zero stored counter
 * must increase, `src/services/webauthn/assertion.ts`), so the library is
 * given counter 0, which disables its own rule; this returns the counter the
 * authenticator reported.
 */
import { verifyAuthenticationResponse } from '@simplewebauthn/server';
import { timingSafeEqual } from '../../../common/encoding.js';
import { check, reasonOf, WebAuthnError } from './errors.js';
import type { AuthenticationResponseJSON, CredentialDeviceType } from './types.js';

/** What the relying party expects of an assertion. */
export interface AuthenticationExpectations {
  /** The challenge as issued (base64url string, compared in constant time). */
  challenge: string;
  /** Accepted `clientDataJSON.origin` values, exact match (web and `android:apk-key-hash:` origins). */
  origins: readonly string[];
  /** The RP ID whose SHA-256 must be the authenticator data's `rpIdHash`. */
  rpId: string;
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
 * Verifies an assertion; throws `WebAuthnError` whose `reason` names the rule
 * that failed (`signature` when the signature does not verify).
 */
export async function verifyAuthentication(
  response: AuthenticationResponseJSON,
  expected: AuthenticationExpectations,
): Promise<VerifiedAuthentication> {
  let result: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    result = await verifyAuthenticationResponse({
      response: response as Parameters<typeof verifyAuthenticationResponse>[0]['response'],
      expectedChallenge: (challenge: string) => timingSafeEqual(challenge, expected.challenge),
      expectedOrigin: [...expected.origins],
      expectedRPID: expected.rpId,
      requireUserVerification: true,
      credential: { id: response.id, publicKey: new Uint8Array(expected.publicKey), counter: 0 },
    });
  } catch (err) {
    throw new WebAuthnError(reasonOf(err, 'signature'), 'assertion did not verify');
  }
  check(result.verified, 'signature', 'assertion signature does not verify');
  const info = result.authenticationInfo;
  return {
    counter: info.newCounter,
    userVerified: info.userVerified,
    deviceType: info.credentialDeviceType,
    backedUp: info.credentialBackedUp,
  };
}
