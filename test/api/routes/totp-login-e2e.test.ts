/**
 * The MFA login step end to end over HTTP (contract §4.1, §4.2 "+ TOTP second
 * factor"): register → enroll TOTP → login with email OTP (code from the
 * delivery payload) → mfaRequired → POST /totp/verify-login → session.
 */
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { externalDelivery, serviceToken } from '../../helpers/service-token.js';
import { codeAt, enrollTotp, STEP_ALIGNED_START_MS, STEP_MS, totpEnv } from '../../helpers/totp.js';

async function registerWithTotp(t: TestApi, email: string) {
  const reg = await t.call('POST', '/registration/register', {
    body: { email },
    headers: await externalDelivery(t.clock.now()),
  });
  expect(reg.status).toBe(200);
  const verified = await t.call('POST', '/otp/verify-email-otp', {
    token: reg.body.token,
    body: { verificationToken: reg.body.delivery.code },
  });
  expect(verified.status).toBe(200);
  expect(verified.body).toHaveProperty('refreshToken');
  const secret = await enrollTotp(t, verified.body.token);
  t.clock.advance(STEP_MS);
  return { sub: reg.body.sub as string, secret };
}

async function emailOtpFirstFactor(t: TestApi, email: string) {
  const login = await t.call('POST', '/login', { body: { identifier: email } });
  expect(login.status).toBe(200);
  const gen = await t.call('POST', '/otp/generate-login-email-otp', {
    token: login.body.token,
    headers: await externalDelivery(t.clock.now()),
  });
  expect(gen.status).toBe(200);
  return t.call('POST', '/otp/verify-login-email-otp', {
    token: gen.body.token,
    body: { verificationToken: gen.body.delivery.code },
  });
}

describe('TOTP as the second factor of an email-OTP login', () => {
  it('answers mfaRequired instead of a session, refuses the mfa token elsewhere, and verify-login issues the session', async () => {
    const t = await makeApi({
      env: { ...totpEnv, LOGIN_METHODS: 'passkey,magic_link,email_otp' },
      clockStartMs: STEP_ALIGNED_START_MS,
    });
    const email = 'mfa.user@example.com';
    const { sub, secret } = await registerWithTotp(t, email);

    const first = await emailOtpFirstFactor(t, email);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      message: 'MFA required',
      mfaRequired: true,
      mfaMethods: ['totp'],
      sub,
      token: expect.any(String),
      ttl: 300,
    });
    expect(decodeJwt(first.body.token)).toMatchObject({ typ: 'ephemeral', ctx: 'mfa', sub });
    const mfaToken: string = first.body.token;

    // The ctx-mfa token opens no other pre-auth (ctx login / registration) route and no access route.
    for (const [method, path, body] of [
      ['POST', '/otp/generate-login-email-otp', {}],
      ['POST', '/otp/verify-login-email-otp', { verificationToken: 'ABCDEF' }],
      ['POST', '/magic-link/check', {}],
      ['POST', '/otp/generate-email-otp', {}],
      ['GET', '/users/me', undefined],
    ] as const) {
      const res = await t.call(method, path, { token: mfaToken, body });
      expect(res.status, path).toBe(401);
      expect(res.body.error, path).toBe('unauthorized');
    }

    const done = await t.call('POST', '/totp/verify-login', {
      token: mfaToken,
      body: { code: codeAt(secret, t.clock.now()) },
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ message: 'Success', sub, email });
    expect((await t.call('GET', '/users/me', { token: done.body.token })).status).toBe(200);
  });

  it('also puts the TOTP step after a registration email verify on an already-verified account', async () => {
    const t = await makeApi({ env: totpEnv, clockStartMs: STEP_ALIGNED_START_MS });
    const email = 'again@example.com';
    const { sub } = await registerWithTotp(t, email);
    const reg = await t.call('POST', '/registration/register', {
      body: { email },
      headers: await externalDelivery(t.clock.now()),
    });
    const res = await t.call('POST', '/otp/verify-email-otp', {
      token: reg.body.token,
      body: { verificationToken: reg.body.delivery.code },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ mfaRequired: true, sub });
    expect(res.body).not.toHaveProperty('refreshToken');
  });

  it('puts the TOTP step after a magic-link sign-in too', async () => {
    const t = await makeApi({ env: totpEnv, clockStartMs: STEP_ALIGNED_START_MS });
    const email = 'link@example.com';
    const { sub, secret } = await registerWithTotp(t, email);
    const deviceA = { 'x-svc-client-ip': '203.0.113.7', 'x-svc-client-user-agent': 'Browser A' };
    const login = await t.call('POST', '/login', { body: { identifier: email } });
    const link = await t.call('POST', '/magic-link', {
      token: login.body.token,
      body: {},
      headers: await externalDelivery(t.clock.now(), deviceA),
    });
    const raw = new URL(link.body.delivery.magicLinkUrl).searchParams.get('token')!;
    expect(
      (await t.call('POST', `/magic-link/verify/${raw}`, { body: { number: link.body.confirmationNumber } })).status,
    ).toBe(200);
    const check = await t.call('POST', '/magic-link/check', {
      token: login.body.token,
      headers: { 'x-svc-service-token': await serviceToken(t.clock.now()), ...deviceA },
    });
    expect(check.status).toBe(200);
    expect(check.body).toMatchObject({ mfaRequired: true, sub });
    expect(check.body).not.toHaveProperty('refreshToken');
    const done = await t.call('POST', '/totp/verify-login', {
      token: check.body.token,
      body: { code: codeAt(secret, t.clock.now()) },
    });
    expect(done.status).toBe(200);
  });

  it('signs in with email OTP alone again once TOTP is disabled', async () => {
    const t = await makeApi({ env: totpEnv, clockStartMs: STEP_ALIGNED_START_MS });
    const email = 'off@example.com';
    const { secret } = await registerWithTotp(t, email);
    const first = await emailOtpFirstFactor(t, email);
    const session = await t.call('POST', '/totp/verify-login', {
      token: first.body.token,
      body: { code: codeAt(secret, t.clock.now()) },
    });
    t.clock.advance(STEP_MS);
    expect(
      (
        await t.call('POST', '/totp/disable', {
          token: session.body.token,
          body: { code: codeAt(secret, t.clock.now()) },
        })
      ).status,
    ).toBe(200);
    const again = await emailOtpFirstFactor(t, email);
    expect(again.status).toBe(200);
    expect(again.body).toHaveProperty('refreshToken');
    expect(again.body).not.toHaveProperty('mfaRequired');
  });
});
