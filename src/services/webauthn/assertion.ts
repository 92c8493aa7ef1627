/**
 * Assertion options and verification shared by passkey login and passkey
 * step-up (contract §3.6, §3.11): user verification always required, the
 * challenge consumed before any other check, the credential looked up by id
 * and owner, a backup eligibility (BE) other than the stored one refused, and a
 * non-zero stored counter that does not increase refused.
 */
import { fromBase64Url } from '../../../common/encoding.js';
import type { AuthenticationResponseJSON } from '../../crypto/webauthn/types.js';
import { verifyAuthentication, type VerifiedAuthentication } from '../../crypto/webauthn/verify-authentication.js';
import type { CredentialRow } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { findUserCredential, recordCredentialUse } from '../../repositories/credentials.js';
import { consumeChallenge, type ChallengePurpose } from './challenges.js';
import { requestOptions } from './options.js';
import { assertNoPrfOutput, prfEvalExtension, type PrfInput } from './prf.js';
import { classifyVerificationError } from './registration.js';
import { CEREMONY_TIMEOUT_MS, relyingParty } from './relying-party.js';

type WebAuthnDeps = Pick<Deps, 'db' | 'clock' | 'config'>;

export interface AllowedCredential {
  id: string;
  transports: string[];
  prfCapable: boolean;
}

/** Applies the request filters: `credentialId`, and PRF capability when `prf` is requested. */
export function filterCredentials<T extends AllowedCredential>(
  creds: T[],
  filters: { credentialId?: string | undefined; prf?: PrfInput | undefined },
): T[] {
  return creds.filter(
    (c) => (filters.credentialId === undefined || c.id === filters.credentialId) && (!filters.prf || c.prfCapable),
  );
}

export async function assertionOptions(
  deps: Pick<Deps, 'config'>,
  input: { challenge: string; allow: AllowedCredential[]; prf?: PrfInput | undefined },
) {
  const rp = relyingParty(await deps.config.get());
  return requestOptions({
    rpId: rp.rpId,
    challenge: input.challenge,
    timeout: CEREMONY_TIMEOUT_MS,
    allow: input.allow,
    extensions: input.prf ? prfEvalExtension(input.prf) : undefined,
  });
}

export type AssertionResult =
  | { ok: true; credential: CredentialRow; newCounter: number }
  | { ok: false; reason: 'no_challenge' | 'unknown_credential' | 'backup_eligibility_changed' | 'counter' | string };

/**
 * Verifies an assertion for `userId`. Throws 400 `prf_output_not_allowed`
 * (after spending the challenge) when PRF outputs are present.
 */
export async function verifyAssertion(
  deps: WebAuthnDeps,
  input: { userId: string; purpose: ChallengePurpose; response: AuthenticationResponseJSON },
): Promise<AssertionResult> {
  const { db, clock } = deps;
  const now = clock.now();
  const live = await consumeChallenge(db, input.userId, input.purpose, now);
  assertNoPrfOutput(input.response.clientExtensionResults);
  if (!live) return { ok: false, reason: 'no_challenge' };

  const credential = await findUserCredential(db, input.userId, input.response.id);
  if (!credential) return { ok: false, reason: 'unknown_credential' };

  const rp = relyingParty(await deps.config.get());
  const publicKey = fromBase64Url(credential.publicKey);
  if (!publicKey) return { ok: false, reason: 'public_key' };
  let verified: VerifiedAuthentication;
  try {
    // UV is required by the verifier; the backup-eligibility and counter rules are ours, below.
    verified = await verifyAuthentication(input.response, {
      challenge: live.challenge,
      origins: rp.origins,
      rpId: rp.rpId,
      publicKey,
    });
  } catch (err) {
    return { ok: false, reason: classifyVerificationError(err) };
  }

  // BE is fixed when the credential is created (WebAuthn L3 §6.1.3, §7.2): a
  // signed assertion that changes it comes from a key that moved (or a
  // misbehaving authenticator), so it is refused like a failed signature.
  // `device_type` is only ever written from the registration's BE flag.
  if (verified.deviceType !== credential.deviceType) return { ok: false, reason: 'backup_eligibility_changed' };
  const newCounter = verified.counter;
  // A non-zero stored counter that does not increase means a cloned authenticator (§3.6).
  if (credential.counter > 0 && newCounter <= credential.counter) return { ok: false, reason: 'counter' };
  // Conditional on the counter we read, so a racing assertion with the same counter loses.
  // BS may change over a credential's life (it was synced, or sync was turned off): record it.
  const use = { expectedCounter: credential.counter, newCounter, backedUp: verified.backedUp, now: new Date(now) };
  if (!(await recordCredentialUse(db, credential.id, use))) return { ok: false, reason: 'counter' };
  return { ok: true, credential, newCounter };
}
