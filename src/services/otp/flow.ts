/**
 * The OTP generate and verify steps shared by the registration and login
 * variants (contract §3.4). Decoys get the same answers: generate succeeds and
 * sends nothing; verify always fails and is counted for lockout.
 */
import { and, eq } from 'drizzle-orm';
import { EPHEMERAL_TTL_SECONDS, signEphemeralToken } from '../../crypto/jwt.js';
import { users, type UserRow } from '../../db/schema.js';
import type { Deps, EphemeralAuth, RequestContext } from '../../deps.js';
import { fail } from '../../errors.js';
import { findUserById } from '../../repositories/users.js';
import { clientFields } from '../events/auth-events.js';
import { decoyShapeForSubject } from '../sign-in/decoy.js';
import type { DispatchContext } from '../delivery/index.js';
import type { DeliveryPayload } from '../delivery/types.js';
import { checkOtpCode, issueOtpCode, type OtpChannel } from './codes.js';
import { admitSms } from './sms-guard.js';

export type OtpFlow = 'registration' | 'login';

type FlowDeps = Pick<Deps, 'db' | 'clock' | 'env' | 'keys' | 'config' | 'events' | 'lockout' | 'log'>;

export interface OtpGenerateResult {
  body: { message: 'Success'; token: string; ttl: number };
  payload: DeliveryPayload | null;
  dispatch: DispatchContext | null;
}

async function decoyHasVerifiedPhone(deps: FlowDeps, auth: EphemeralAuth): Promise<boolean> {
  const cfg = await deps.config.get();
  return decoyShapeForSubject(deps.env.secrets.decoySubject, auth.subject, auth.claims.idt, {
    loginMethods: cfg.login_methods,
    fallback: cfg.passkey_login_fallback_enabled,
  }).hasVerifiedPhone;
}

/** The phone a code may go to: any phone on a registration, only a verified one on a login. */
function phoneOf(user: UserRow, flow: OtpFlow): string | null {
  if (!user.phone) return null;
  return flow === 'login' && !user.phoneVerified ? null : user.phone;
}

export async function generateOtp(
  deps: FlowDeps,
  auth: EphemeralAuth,
  channel: OtpChannel,
  flow: OtpFlow,
  client: RequestContext,
): Promise<OtpGenerateResult> {
  const { user } = auth;
  let payload: DeliveryPayload | null = null;
  if (channel === 'phone') {
    const available = user ? phoneOf(user, flow) !== null : await decoyHasVerifiedPhone(deps, auth);
    if (!available) throw fail('phone_not_available');
  }
  const sends = !!user && !registrationPhoneLocked(user, channel, flow);
  // SMS-pumping guard, only where a send would happen: a refusal is answered
  // exactly as a decoy's (no code, `delivery: null`).
  const admitted =
    !sends ||
    channel !== 'phone' ||
    (await admitSms(deps, phoneOf(user!, flow)!, { userId: user!.id, client, attemptId: auth.claims.jti })).ok;
  if (user && sends && admitted) {
    const code = await issueOtpCode(deps, user.id, channel);
    payload =
      channel === 'email'
        ? { kind: 'otp_email', to: user.email, code }
        : { kind: 'otp_sms', to: phoneOf(user, flow)!, code };
    await deps.events.record({
      ...clientFields(client),
      type: 'otp_sent',
      userId: user.id,
      metadata: { channel, flow, attemptId: auth.claims.jti },
    });
  }
  // Re-minted with the same jti, ctx and idt and a fresh 5-minute exp (contract §3.4).
  const token = await signEphemeralToken(
    deps.keys,
    { sub: auth.subject, ctx: auth.ctx, jti: auth.claims.jti, ...(auth.claims.idt ? { idt: auth.claims.idt } : {}) },
    { issuer: deps.env.issuer, nowMs: deps.clock.now() },
  );
  const dispatch = payload && user ? { userId: user.id, ...clientFields(client), attemptId: auth.claims.jti } : null;
  return { body: { message: 'Success', token, ttl: EPHEMERAL_TTL_SECONDS }, payload, dispatch };
}

/**
 * Anyone can obtain a registration token for any email (registration never
 * reveals whether it exists), so a registration token must not change the
 * phone factor of an account that is already verified: otherwise whoever
 * planted their phone on an unverified account could verify it after the
 * owner took the account over, and sign in by `phone_otp`. For such accounts
 * the phone routes behave like a decoy's (200 and nothing sent; verify fails
 * and is counted), so the answers still do not reveal verification state.
 */
const registrationPhoneLocked = (user: UserRow, channel: OtpChannel, flow: OtpFlow) =>
  flow === 'registration' && channel === 'phone' && user.verified;

/**
 * Lock check, then the code check. Returns the fresh user row on success;
 * every failure (no code, wrong, expired, burned, decoy) writes
 * `verify_otp_failed` plus an `auth_failures` row and throws 401.
 */
export async function verifyOtp(
  deps: FlowDeps,
  auth: EphemeralAuth,
  channel: OtpChannel,
  flow: OtpFlow,
  submitted: string,
  client: RequestContext,
): Promise<UserRow> {
  const { lockout_policy } = await deps.config.get();
  const userId = auth.user?.id ?? null;
  const attemptId = auth.claims.jti;
  const eventBase = { ...clientFields(client), userId };
  await deps.lockout.assertNotLocked(auth.subject, lockout_policy, {
    ...eventBase,
    metadata: { flow, channel, attemptId },
  });

  const outcome = !auth.user
    ? 'decoy'
    : registrationPhoneLocked(auth.user, channel, flow)
      ? 'verified_account'
      : await checkOtpCode(deps, auth.user.id, channel, submitted);
  if (outcome === 'ok') {
    const fresh = await findUserById(deps.db, auth.user!.id);
    if (fresh && !fresh.revoked) {
      await deps.events.record({ ...eventBase, type: 'verify_otp_success', metadata: { flow, channel, attemptId } });
      return fresh;
    }
  }
  const metadata = {
    flow,
    channel,
    attemptId,
    reason: outcome === 'ok' ? 'revoked' : outcome,
    ...(auth.user ? {} : { decoy: true }),
  };
  await deps.events.record({ ...eventBase, type: 'verify_otp_failed', metadata });
  await deps.lockout.recordFailure(auth.subject, 'verify_otp_failed', lockout_policy, {
    ...eventBase,
    metadata: { flow, channel, attemptId },
  });
  throw fail('otp_verification_failed');
}

/**
 * The write that completes a registration (email proven, roles with any owner
 * grant), for the caller to put in the session's batch. Conditional on
 * `verified = 0`, so it completes a registration once.
 */
export function completeRegistrationWrite(deps: Pick<Deps, 'db' | 'clock'>, userId: string, roles: string[]) {
  return deps.db
    .update(users)
    .set({ verified: true, emailVerified: true, roles, updatedAt: new Date(deps.clock.now()) })
    .where(and(eq(users.id, userId), eq(users.verified, false)));
}

/** Marks the email proven. Returns true when this verification completed the registration. */
export async function markEmailVerified(deps: Pick<Deps, 'db' | 'clock'>, userId: string): Promise<boolean> {
  const now = new Date(deps.clock.now());
  const res = await deps.db
    .update(users)
    .set({ verified: true, emailVerified: true, updatedAt: now })
    .where(and(eq(users.id, userId), eq(users.verified, false)));
  if (res.rowsAffected === 1) return true;
  await deps.db
    .update(users)
    .set({ emailVerified: true, updatedAt: now })
    .where(and(eq(users.id, userId), eq(users.emailVerified, false)));
  return false;
}

export async function markPhoneVerified(deps: Pick<Deps, 'db' | 'clock'>, userId: string): Promise<void> {
  await deps.db
    .update(users)
    .set({ phoneVerified: true, updatedAt: new Date(deps.clock.now()) })
    .where(eq(users.id, userId));
}
