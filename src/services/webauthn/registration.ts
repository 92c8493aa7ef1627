/**
 * Passkey registration (contract §3.6): only for a signed-in user
 * (access credential; the route adds the `+SU?` gate). Attestation `none`,
 * user verification required, algorithms -8/-7/-257, existing credentials
 * excluded, optional PRF requirement. Registration never issues a session.
 */
import { toBase64Url } from '../../../common/encoding.js';
import { WebAuthnError } from '../../crypto/webauthn/errors.js';
import type { RegistrationResponseJSON } from '../../crypto/webauthn/types.js';
import { verifyRegistration, type VerifiedRegistration } from '../../crypto/webauthn/verify-registration.js';
import type { CredentialRow, UserRow } from '../../db/schema.js';
import type { Deps, RequestContext } from '../../deps.js';
import { fail } from '../../errors.js';
import { insertCredential, listCredentials } from '../../repositories/credentials.js';
import { clientFields } from '../events/auth-events.js';
import { consumeChallenge, issueChallenge } from './challenges.js';
import { creationOptions } from './options.js';
import { assertNoPrfOutput, reportsPrfEnabled } from './prf.js';
import { CEREMONY_TIMEOUT_MS, relyingParty, SUPPORTED_ALGORITHMS } from './relying-party.js';

type WebAuthnDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'events'>;

export interface RegistrationStartInput {
  user: UserRow;
  client: RequestContext;
  sessionId: string;
  attachment?: 'platform' | 'cross-platform' | undefined;
  requirePrf?: boolean | undefined;
  /** Ask the authenticator about PRF without refusing one that lacks it. */
  requestPrf?: boolean | undefined;
}

export async function startRegistration(deps: WebAuthnDeps, input: RegistrationStartInput) {
  const { db, clock, events } = deps;
  const rp = relyingParty(await deps.config.get());
  const existing = await listCredentials(db, input.user.id);
  const requirePrf = input.requirePrf === true;
  const prfRequested = requirePrf || input.requestPrf === true;
  const challenge = await issueChallenge(db, {
    userId: input.user.id,
    purpose: 'registration',
    context: { requirePrf, prfRequested },
    nowMs: clock.now(),
  });
  // `prf: {}` asks the authenticator to report PRF support: with requirePrf
  // (required PRF), or requestPrf (optional PRF).
  const options = await creationOptions({
    rpName: rp.rpName,
    rpId: rp.rpId,
    userId: input.user.id,
    userName: input.user.email,
    challenge,
    timeout: CEREMONY_TIMEOUT_MS,
    algorithms: SUPPORTED_ALGORITHMS,
    exclude: existing,
    attachment: input.attachment,
    extensions: { credProps: true, ...(prfRequested ? { prf: {} } : {}) },
  });
  await events.record({
    type: 'webauthn_registration_challenge',
    userId: input.user.id,
    sessionId: input.sessionId,
    ...clientFields(input.client),
    metadata: { requirePrf, requestPrf: prfRequested },
  });
  return options;
}

export interface RegistrationMetadata {
  friendlyName?: string | null | undefined;
  platform?: string | null | undefined;
  browser?: string | null | undefined;
  deviceInfo?: string | null | undefined;
}

export interface RegistrationFinishInput {
  user: UserRow;
  client: RequestContext;
  sessionId: string;
  response: RegistrationResponseJSON;
  metadata?: RegistrationMetadata | undefined;
}

export async function finishRegistration(deps: WebAuthnDeps, input: RegistrationFinishInput): Promise<CredentialRow> {
  const { db, clock, events } = deps;
  const now = clock.now();
  const base = { userId: input.user.id, sessionId: input.sessionId, ...clientFields(input.client) };
  const refuse = async (
    reason: string,
    code: 'webauthn_registration_failed' | 'prf_required' = 'webauthn_registration_failed',
  ) => {
    await events.record({ ...base, type: 'webauthn_registration_failed', metadata: { reason } });
    return fail(code);
  };

  // Spent first: every outcome below uses the challenge up (contract §2.7).
  const live = await consumeChallenge(db, input.user.id, 'registration', now);
  assertNoPrfOutput(input.response.clientExtensionResults);
  if (!live) throw await refuse('no_challenge');

  const rp = relyingParty(await deps.config.get());
  let info: VerifiedRegistration;
  try {
    info = await verifyRegistration(input.response, {
      challenge: live.challenge,
      origins: rp.origins,
      rpId: rp.rpId,
      algorithms: SUPPORTED_ALGORITHMS,
    });
  } catch (err) {
    throw await refuse(classifyVerificationError(err));
  }

  const prfCapable = reportsPrfEnabled(input.response.clientExtensionResults);
  if (live.context?.requirePrf && !prfCapable) throw await refuse('prf_required', 'prf_required');

  const meta = input.metadata ?? {};
  const row = {
    id: info.credentialId,
    userId: input.user.id,
    publicKey: toBase64Url(info.publicKey),
    counter: info.counter,
    transports: input.response.response.transports ?? [],
    deviceType: info.deviceType,
    backedUp: info.backedUp,
    prfCapable,
    aaguid: info.aaguid,
    attestationFormat: info.fmt,
    friendlyName: meta.friendlyName ?? null,
    platform: meta.platform ?? null,
    browser: meta.browser ?? null,
    deviceInfo: meta.deviceInfo ?? null,
    lastUsedAt: null,
    createdAt: new Date(now),
    updatedAt: new Date(now),
  };
  if (!(await insertCredential(db, row))) {
    await events.record({
      ...base,
      type: 'webauthn_registration_failed',
      metadata: { reason: 'duplicate_credential' },
    });
    throw fail('already_exists', 'Credential already registered');
  }
  // `fmt` and `attestation` (none | self | chain): what the attestation
  // statement was and what the library verified of it.
  await events.record({
    ...base,
    type: 'webauthn_registration_success',
    metadata: { prfCapable, deviceType: row.deviceType, fmt: info.fmt, attestation: info.attestation },
  });
  return row;
}

/**
 * A short reason for audit metadata: the verifier's failure code
 * (`WebAuthnError.reason`), or `verification` for anything else. Never an
 * error message (they could echo client values).
 */
export function classifyVerificationError(err: unknown): string {
  return err instanceof WebAuthnError ? err.reason : 'verification';
}
