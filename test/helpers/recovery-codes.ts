/** Recovery-code test helpers: a TOTP user with a fresh step-up and a generated set. */
import { expect } from 'vitest';
import type { UserRow } from '../../src/db/schema.js';
import { issueSession, type MfaRequiredBody } from '../../src/services/session/issuance.js';
import { createUser, signIn, testClient } from './factories.js';
import { makeApi, type TestApi } from './make-app.js';
import { codeAt, enrollTotp, STEP_ALIGNED_START_MS, STEP_MS, totpEnv } from './totp.js';

export const RECOVERY_CODE_FORMAT = /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/;

/** A TOTP step-up on the session of `token`: the next 30 s step, so the enrolment's step is not replayed. */
export async function totpStepUp(t: TestApi, token: string, secret: string): Promise<void> {
  t.clock.advance(STEP_MS);
  const res = await t.call('POST', '/totp/verify-mfa', { token, body: { code: codeAt(secret, t.clock.now()) } });
  expect(res.status).toBe(200);
}

export interface RecoveryUser {
  t: TestApi;
  user: UserRow;
  token: string;
  secret: string;
}

/** A user with TOTP enabled and a signed-in session (no step-up yet). */
export async function totpUser(env: Record<string, string> = totpEnv, t?: TestApi): Promise<RecoveryUser> {
  const api = t ?? (await makeApi({ env, clockStartMs: STEP_ALIGNED_START_MS }));
  const user = await createUser(api);
  const { token } = await signIn(api, user);
  const secret = await enrollTotp(api, token);
  return { t: api, user, token, secret };
}

/** Steps up and generates a set; returns the ten codes. */
export async function generateCodes(u: RecoveryUser): Promise<string[]> {
  await totpStepUp(u.t, u.token, u.secret);
  const res = await u.t.call('POST', '/recovery-codes', { token: u.token });
  expect(res.status).toBe(200);
  return res.body.codes;
}

/** The MFA-required body of an email-OTP first factor for `user` (the ctx-mfa token). */
export async function mfaToken(t: TestApi, user: UserRow): Promise<string> {
  const first = (await issueSession(t.api.deps, {
    user,
    method: 'email_otp',
    client: testClient(),
    attemptId: crypto.randomUUID(),
  })) as MfaRequiredBody;
  expect(first.mfaRequired).toBe(true);
  return first.token;
}
