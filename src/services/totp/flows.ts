/**
 * The TOTP flows of contract §3.12: status, enrollment (start, verify),
 * disable, the MFA login step (verify-login) and TOTP step-up (verify-mfa).
 */
import { sealSecret } from '../../crypto/secret-box.js';
import {
  newTotpSecret,
  otpauthUrl,
  TOTP_ALGORITHM,
  TOTP_DIGITS,
  TOTP_PERIOD_SECONDS,
  totpSecretBase32,
} from '../../crypto/totp.js';
import { randomId } from '../../crypto/random.js';
import type { Db } from '../../db/client.js';
import { fail } from '../../errors.js';
import {
  activatePendingTotp,
  deleteEnabledTotp,
  findEnabledTotp,
  findNewestPendingTotp,
  replacePendingTotp,
  useTotpCounter,
} from '../../repositories/totp-credentials.js';
import { issueSession, type MfaRequiredBody, type SessionEnvelope } from '../session/issuance.js';
import { markStepUp, type StepUpStatus } from '../session/step-up.js';
import { eventBase, spendTotpCode, type TotpActor, type TotpDeps } from './verification.js';

/** A pending enrollment is usable for one hour (maintenance deletes it after that, contract §2.6). */
export const PENDING_TOTP_TTL_MS = 60 * 60 * 1000;

export interface TotpStatusBody {
  enabled: boolean;
  verifiedAt: string | null;
  lastUsedAt: string | null;
}

export async function totpStatus(db: Db, userId: string): Promise<TotpStatusBody> {
  const row = await findEnabledTotp(db, userId);
  return {
    enabled: !!row,
    verifiedAt: row?.verifiedAt?.toISOString() ?? null,
    lastUsedAt: row?.lastUsedAt?.toISOString() ?? null,
  };
}

export interface EnrollmentStart {
  message: 'Success';
  secret: string;
  otpauthUrl: string;
  issuer: string;
  accountName: string;
  algorithm: typeof TOTP_ALGORITHM;
  digits: number;
  period: number;
}

/** Replaces older pending rows with a new disabled row; the secret leaves the server only here. */
export async function startTotpEnrollment(deps: TotpDeps, actor: TotpActor): Promise<EnrollmentStart> {
  const { db, clock, env, events } = deps;
  const now = new Date(clock.now());
  const issuer = (await deps.config.get()).app_name;
  const accountName = actor.user.email;
  const secret = newTotpSecret();
  const sealed = await sealSecret(env.secrets.totpEncryption, actor.user.id, secret);
  await replacePendingTotp(db, {
    id: randomId(),
    userId: actor.user.id,
    secretCiphertext: sealed.ciphertext,
    secretIv: sealed.iv,
    issuer,
    accountName,
    enabled: false,
    createdAt: now,
    updatedAt: now,
  });
  await events.record({ ...eventBase(actor), type: 'totp_enrollment_started' });
  const secretBase32 = totpSecretBase32(secret);
  return {
    message: 'Success',
    secret: secretBase32,
    otpauthUrl: otpauthUrl({ secretBase32, issuer, accountName }),
    issuer,
    accountName,
    algorithm: TOTP_ALGORITHM,
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  };
}

/** Enables the newest pending enrollment with a valid code, disabling any earlier enabled row. */
export async function verifyTotpEnrollment(deps: TotpDeps, actor: TotpActor, code: string): Promise<void> {
  const userId = actor.user.id;
  await spendTotpCode(deps, {
    actor,
    flow: 'enrollment',
    code,
    load: () => findNewestPendingTotp(deps.db, userId, new Date(deps.clock.now() - PENDING_TOTP_TTL_MS)),
    spend: (row, counter, nowMs) => activatePendingTotp(deps.db, { userId, id: row.id, counter, now: new Date(nowMs) }),
    onMissing: () => fail('totp_verification_failed', 'No pending TOTP enrollment'),
  });
  await deps.events.record({ ...eventBase(actor), type: 'totp_enrollment_success' });
}

/** Deletes the enabled credential; a valid current code is required. */
export async function disableTotp(deps: TotpDeps, actor: TotpActor, code: string): Promise<void> {
  await spendTotpCode(deps, {
    actor,
    flow: 'disable',
    code,
    load: () => findEnabledTotp(deps.db, actor.user.id),
    spend: (row, counter) => deleteEnabledTotp(deps.db, row.id, counter),
    onMissing: () => fail('totp_verification_failed', 'TOTP is not enabled'),
  });
  await deps.events.record({ ...eventBase(actor), type: 'totp_disabled' });
}

/** Completes the MFA login step (contract §3.7): a valid code issues the session. */
export async function verifyTotpLogin(
  deps: TotpDeps,
  actor: TotpActor,
  code: string,
): Promise<SessionEnvelope | MfaRequiredBody> {
  await spendTotpCode(deps, {
    actor,
    flow: 'login',
    code,
    load: () => findEnabledTotp(deps.db, actor.user.id),
    spend: (row, counter, nowMs) => useTotpCounter(deps.db, row.id, counter, new Date(nowMs)),
    onMissing: () => fail('totp_verification_failed'),
  });
  await deps.events.record({
    ...eventBase(actor),
    type: 'totp_success',
    metadata: { flow: 'login', ...(actor.attemptId ? { attemptId: actor.attemptId } : {}) },
  });
  return issueSession(deps, {
    user: actor.user,
    method: 'totp',
    client: actor.client,
    mfaSatisfied: true,
    attemptId: actor.attemptId,
  });
}

/** TOTP step-up: a valid code marks the current session fresh (contract §3.11). */
export async function verifyTotpStepUp(
  deps: TotpDeps,
  actor: TotpActor & { sessionId: string },
  code: string,
): Promise<StepUpStatus> {
  await spendTotpCode(deps, {
    actor,
    flow: 'step_up',
    code,
    load: () => findEnabledTotp(deps.db, actor.user.id),
    spend: (row, counter, nowMs) => useTotpCounter(deps.db, row.id, counter, new Date(nowMs)),
    onMissing: () => fail('step_up_unavailable'),
  });
  const status = await markStepUp(deps.db, actor.sessionId, 'totp', deps.clock.now());
  await deps.events.record({
    ...eventBase(actor),
    type: 'mfa_otp_success',
    metadata: { flow: 'step_up', method: 'totp' },
  });
  return status;
}
