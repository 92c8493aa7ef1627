/**
 * Passkey registration (contract §3.6, D5a): only for a signed-in user
 * (access credential; the route adds the `+SU?` gate). Attestation `none`,
 * user verification required, algorithms -8/-7/-257, existing credentials
 * excluded, optional PRF requirement. Registration never issues a session.
 */
import { generateRegistrationOptions, verifyRegistrationResponse, type RegistrationResponseJSON } from '@simplewebauthn/server';
import { fromBase64Url, toBase64Url, utf8 } from '../../crypto/encoding.js';
import type { CredentialRow, UserRow } from '../../db/schema.js';
import type { Deps, RequestContext } from '../../deps.js';
import { fail } from '../../errors.js';
import { insertCredential, listCredentials } from '../../repositories/credentials.js';
import { clientFields } from '../auth-events.js';
import { consumeChallenge, issueChallenge } from './challenges.js';
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
  const options = await generateRegistrationOptions({
    rpName: rp.rpName,
    rpID: rp.rpId,
    userID: new Uint8Array(utf8(input.user.id)),
    userName: input.user.email,
    userDisplayName: input.user.email,
    // Bytes, not the string: the library would UTF-8-encode a string challenge again.
    challenge: new Uint8Array(fromBase64Url(challenge)),
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: 'none',
    supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    excludeCredentials: existing.map((c) => ({ id: c.id, transports: c.transports as never })),
    authenticatorSelection: {
      residentKey: 'preferred',
      userVerification: 'required',
      ...(input.attachment ? { authenticatorAttachment: input.attachment } : {}),
    },
  });
  await events.record({
    type: 'webauthn_registration_challenge',
    userId: input.user.id,
    sessionId: input.sessionId,
    ...clientFields(input.client),
    metadata: { requirePrf, requestPrf: prfRequested },
  });
  // `prf: {}` asks the authenticator to report PRF support: with requirePrf [C], or requestPrf (optional PRF, issue #23).
  return { ...options, extensions: { credProps: true, ...(prfRequested ? { prf: {} } : {}) } };
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
  const refuse = async (reason: string, code: 'webauthn_registration_failed' | 'prf_required' = 'webauthn_registration_failed') => {
    await events.record({ ...base, type: 'webauthn_registration_failed', metadata: { reason } });
    return fail(code);
  };

  // Spent first: every outcome below uses the challenge up (contract §2.7).
  const live = await consumeChallenge(db, input.user.id, 'registration', now);
  assertNoPrfOutput(input.response.clientExtensionResults);
  if (!live) throw await refuse('no_challenge');

  const rp = relyingParty(await deps.config.get());
  let info;
  try {
    const verified = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: live.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.rpId,
      requireUserVerification: true,
      supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    });
    if (!verified.verified) throw new Error('not verified');
    info = verified.registrationInfo;
  } catch (err) {
    throw await refuse(classifyVerificationError(err));
  }

  const prfCapable = reportsPrfEnabled(input.response.clientExtensionResults);
  if (live.context?.requirePrf && !prfCapable) throw await refuse('prf_required', 'prf_required');

  const meta = input.metadata ?? {};
  const row = {
    id: info.credential.id,
    userId: input.user.id,
    publicKey: toBase64Url(info.credential.publicKey),
    counter: info.credential.counter,
    transports: input.response.response.transports ?? [],
    deviceType: info.credentialDeviceType,
    backedUp: info.credentialBackedUp,
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
    await events.record({ ...base, type: 'webauthn_registration_failed', metadata: { reason: 'duplicate_credential' } });
    throw fail('already_exists', 'Credential already registered');
  }
  await events.record({ ...base, type: 'webauthn_registration_success', metadata: { prfCapable, deviceType: row.deviceType } });
  return row;
}

/** A short reason for audit metadata; never the library message (it echoes client values). */
export function classifyVerificationError(err: unknown): string {
  const m = String((err as Error)?.message ?? '').toLowerCase();
  if (m.includes('origin')) return 'origin';
  if (m.includes('rp id') || m.includes('rpid')) return 'rp_id';
  if (m.includes('challenge')) return 'challenge';
  if (m.includes('user verif') || m.includes('user could not be verified')) return 'user_verification';
  if (m.includes('signature')) return 'signature';
  return 'verification';
}
