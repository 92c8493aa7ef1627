/**
 * The MFA login step (contract §3.7, §4.2): a TOTP user's non-passkey first
 * factor yields `mfaRequired` + an ephemeral ctx-`mfa` token, and
 * `POST /totp/verify-login` completes the sign-in.
 */
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { signEphemeralToken } from '../../../src/crypto/jwt.js';
import { authEvents, users } from '../../../src/db/schema.js';
import { issueSession, type MfaRequiredBody } from '../../../src/services/session/issuance.js';
import { createUser, signIn, testClient } from '../../helpers/factories.js';
import { makeApi, TEST_ISSUER } from '../../helpers/make-app.js';
import { codeAt, enrollTotp, STEP_ALIGNED_START_MS, STEP_MS, totpEnv, wrongCodeAt } from '../../helpers/totp.js';

/** A user with TOTP enabled, and the MFA-required body of an email-OTP first factor. */
async function mfaLogin(env: Record<string, string> = totpEnv) {
  const t = await makeApi({ env, clockStartMs: STEP_ALIGNED_START_MS });
  const user = await createUser(t);
  const secret = await enrollTotp(t, (await signIn(t, user)).token);
  t.clock.advance(STEP_MS);
  const first = await issueSession(t.api.deps, {
    user,
    method: 'email_otp',
    client: testClient(),
    attemptId: crypto.randomUUID(),
  });
  return { t, user, secret, first: first as MfaRequiredBody };
}

describe('MFA login step', () => {
  it('answers a TOTP user’s email-OTP first factor with mfaRequired and a 5-minute ctx-mfa token, not a session', async () => {
    const { t, user, first } = await mfaLogin();
    expect(first).toEqual({
      message: 'MFA required',
      mfaRequired: true,
      mfaMethods: ['totp'],
      sub: user.id,
      token: expect.any(String),
      ttl: 300,
    });
    expect(first).not.toHaveProperty('refreshToken');
    const claims = decodeJwt(first.token);
    expect(claims).toMatchObject({ typ: 'ephemeral', ctx: 'mfa', sub: user.id, iss: TEST_ISSUER, aud: TEST_ISSUER });
    expect(claims.exp! - claims.iat!).toBe(300);
    const events = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.userId, user.id));
    expect(events.map((e) => e.type)).toContain('mfa_required');
  });

  it('keeps returnTo on the MFA-required body (OAuth callback)', async () => {
    const { t, user } = await mfaLogin();
    const body = await issueSession(t.api.deps, {
      user,
      method: 'oauth',
      client: testClient(),
      returnTo: 'http://localhost:3000/after',
    });
    expect(body).toMatchObject({ mfaRequired: true, returnTo: 'http://localhost:3000/after' });
  });

  it('never asks a passkey sign-in for TOTP', async () => {
    const { t, user } = await mfaLogin();
    const body = await issueSession(t.api.deps, { user, method: 'passkey', client: testClient(), mfaSatisfied: true });
    expect(body).toHaveProperty('refreshToken');
  });

  it('completes the login with a valid code: a full session envelope that works for /users/me and /refresh', async () => {
    const { t, user, secret, first } = await mfaLogin();
    const res = await t.call('POST', '/totp/verify-login', {
      token: first.token,
      body: { code: codeAt(secret, t.clock.now()) },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      message: 'Success',
      sub: user.id,
      email: user.email,
      roles: ['user'],
      ttl: 900,
      organizationId: null,
    });
    expect(res.body.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await t.call('GET', '/users/me', { token: res.body.token })).status).toBe(200);
    expect((await t.call('POST', '/refresh', { token: res.body.refreshToken })).status).toBe(200);
    const events = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.userId, user.id));
    const success = events.find((e) => e.type === 'totp_success');
    expect(success?.metadata).toMatchObject({ flow: 'login', attemptId: decodeJwt(first.token).jti });
    expect(
      events.find((e) => e.type === 'session_issued' && (e.metadata as { method: string }).method === 'totp'),
    ).toBeTruthy();
  });

  it('answers a wrong code with 401 totp_verification_failed and counts it', async () => {
    const { t, user, secret, first } = await mfaLogin();
    const res = await t.call('POST', '/totp/verify-login', {
      token: first.token,
      body: { code: wrongCodeAt(secret, t.clock.now()) },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'totp_verification_failed', message: 'Invalid TOTP code' });
    const events = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.userId, user.id));
    expect(events.filter((e) => e.type === 'totp_failed').map((e) => e.metadata)).toEqual([
      expect.objectContaining({ flow: 'login', reason: 'invalid_code' }),
    ]);
  });

  it('refuses to replay the code that completed a login', async () => {
    const { t, secret, first } = await mfaLogin();
    const code = codeAt(secret, t.clock.now());
    expect((await t.call('POST', '/totp/verify-login', { token: first.token, body: { code } })).status).toBe(200);
    const replay = await t.call('POST', '/totp/verify-login', { token: first.token, body: { code } });
    // A spent step is told apart from a wrong code (so a UI can say "wait for the next code"), still 401 pre-auth.
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({
      error: 'totp_code_already_used',
      message: 'That code was already used; wait for the next one',
    });
  });

  it('locks after ten wrong codes with 423 and retryAfterSeconds', async () => {
    const { t, secret, first } = await mfaLogin();
    for (let i = 0; i < 10; i++) {
      expect(
        (
          await t.call('POST', '/totp/verify-login', {
            token: first.token,
            body: { code: wrongCodeAt(secret, t.clock.now()) },
          })
        ).status,
      ).toBe(401);
    }
    const locked = await t.call('POST', '/totp/verify-login', {
      token: first.token,
      body: { code: codeAt(secret, t.clock.now()) },
    });
    expect(locked.status).toBe(423);
    expect(locked.body).toMatchObject({ error: 'account_locked', retryAfterSeconds: 900 });
  });

  it('refuses the mfa token on other routes, and other tokens on verify-login', async () => {
    const { t, user, secret, first } = await mfaLogin();
    const code = codeAt(secret, t.clock.now());
    // The ctx-mfa token is neither an access token nor a refresh token.
    // The ctx-login routes (OTP generate/verify, magic-link check) are covered in totp-login-e2e.test.ts.
    expect((await t.call('GET', '/users/me', { token: first.token })).status).toBe(401);
    expect((await t.call('POST', '/refresh', { token: first.token })).status).toBe(401);
    expect((await t.call('POST', '/totp/verify-mfa', { token: first.token, body: { code } })).status).toBe(401);
    const wrongKind = (
      await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'bearer_token_failed'))
    ).map((e) => e.metadata);
    expect(wrongKind).toEqual(
      expect.arrayContaining([expect.objectContaining({ expected: 'access', presented: 'ephemeral:mfa' })]),
    );

    const loginToken = await signEphemeralToken(
      t.api.deps.keys,
      { sub: user.id, ctx: 'login', idt: 'email', jti: crypto.randomUUID() },
      { issuer: TEST_ISSUER, nowMs: t.clock.now() },
    );
    const access = (await signIn(t, user)).token;
    for (const token of [loginToken, access]) {
      const res = await t.call('POST', '/totp/verify-login', { token, body: { code } });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('unauthorized');
    }
    // The code was never spent by the refused calls.
    expect((await t.call('POST', '/totp/verify-login', { token: first.token, body: { code } })).status).toBe(200);
  });

  it('refuses an expired mfa token and the token of a revoked user', async () => {
    const { t, user, secret, first } = await mfaLogin();
    t.clock.advance(331_000); // 300 s TTL + 30 s skew
    expect(
      (
        await t.call('POST', '/totp/verify-login', {
          token: first.token,
          body: { code: codeAt(secret, t.clock.now()) },
        })
      ).status,
    ).toBe(401);

    const second = (await issueSession(t.api.deps, {
      user,
      method: 'magic_link',
      client: testClient(),
    })) as MfaRequiredBody;
    await t.api.deps.db.update(users).set({ revoked: true }).where(eq(users.id, user.id));
    const res = await t.call('POST', '/totp/verify-login', {
      token: second.token,
      body: { code: codeAt(secret, t.clock.now()) },
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
  });
});
