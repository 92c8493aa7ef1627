/** Cross-flow behaviour: the MFA step after a first factor, and the time floor on every listed route. */
import { describe, expect, it } from 'vitest';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { externalDelivery } from '../../helpers/service-token.js';
import { codeAt, enrollTotp, STEP_ALIGNED_START_MS, totpEnv } from '../../helpers/totp.js';

const DEVICE = { 'x-svc-client-ip': '203.0.113.7', 'x-svc-client-user-agent': 'Browser A' };

async function loginToken(t: TestApi, identifier: string) {
  return (await t.call('POST', '/login', { body: { identifier } })).body.token as string;
}

describe('MFA step after a first factor (contract §3.7)', () => {
  it('an email-code login of a user with enabled TOTP answers MFA required, then TOTP completes it', async () => {
    const t = await makeApi({ env: totpEnv, clockStartMs: STEP_ALIGNED_START_MS });
    const user = await createUser(t);
    const secret = await enrollTotp(t, (await signIn(t, user)).token);
    const gen = await t.call('POST', '/otp/generate-login-email-otp', {
      token: await loginToken(t, user.email),
      headers: await externalDelivery(t.clock.now()),
    });
    const verify = await t.call('POST', '/otp/verify-login-email-otp', {
      token: gen.body.token,
      body: { verificationToken: gen.body.delivery.code },
    });
    expect(verify.status).toBe(200);
    expect(verify.body).toMatchObject({
      message: 'MFA required',
      mfaRequired: true,
      mfaMethods: ['totp'],
      sub: user.id,
      ttl: 300,
    });
    expect(verify.body).not.toHaveProperty('refreshToken');
    t.clock.advance(30_000);
    const done = await t.call('POST', '/totp/verify-login', {
      token: verify.body.token,
      body: { code: codeAt(secret, t.clock.now()) },
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ message: 'Success', sub: user.id });
  });

  it('a magic-link poll of a user with enabled TOTP answers MFA required', async () => {
    const t = await makeApi({ env: totpEnv, clockStartMs: STEP_ALIGNED_START_MS });
    const user = await createUser(t);
    await enrollTotp(t, (await signIn(t, user)).token);
    const token = await loginToken(t, user.email);
    const req = await t.call('POST', '/magic-link', {
      token,
      body: {},
      headers: await externalDelivery(t.clock.now(), DEVICE),
    });
    const raw = new URL(req.body.delivery.magicLinkUrl).searchParams.get('token');
    await t.call('POST', `/magic-link/verify/${raw}`, { body: { number: req.body.confirmationNumber } });
    const check = await t.call('POST', '/magic-link/check', {
      token,
      headers: await externalDelivery(t.clock.now(), DEVICE),
    });
    expect(check.status).toBe(200);
    expect(check.body.mfaRequired).toBe(true);
  });
});

describe('response-time floor on every listed pre-auth route (contract §3.2)', () => {
  it('holds registration, OTP generate and magic-link request for known and unknown principals', async () => {
    const t = await makeApi({ env: { LOGIN_RESPONSE_FLOOR_MS: '250' } });
    const user = await createUser(t, { phone: '+14155552671', phoneVerified: true });
    const known = await loginToken(t, user.email);
    const unknown = await loginToken(t, 'nobody@example.com');
    const reg = await t.call('POST', '/registration/register', { body: { email: 'fresh@example.com' } });
    const timed = async (method: string, path: string, opts: Parameters<TestApi['call']>[2]) => {
      const start = performance.now();
      const res = await t.call(method, path, opts);
      return { status: res.status, ms: performance.now() - start };
    };
    const cases = [
      await timed('POST', '/registration/register', { body: { email: user.email } }),
      await timed('POST', '/registration/register', { body: { email: 'other@example.com' } }),
      await timed('POST', '/otp/generate-email-otp', { token: reg.body.token }),
      await timed('POST', '/otp/generate-login-email-otp', { token: known }),
      await timed('POST', '/otp/generate-login-email-otp', { token: unknown }),
      await timed('POST', '/otp/generate-login-phone-otp', { token: known }),
      await timed('POST', '/magic-link', {
        token: known,
        body: {},
        headers: await externalDelivery(t.clock.now(), DEVICE),
      }),
      await timed('POST', '/magic-link', {
        token: unknown,
        body: {},
        headers: await externalDelivery(t.clock.now(), DEVICE),
      }),
      await timed('POST', '/otp/generate-login-email-otp', { token: 'not-a-token' }),
    ];
    expect(cases.map((c) => c.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 401]);
    for (const c of cases) expect(c.ms).toBeGreaterThanOrEqual(249);
  });
});
