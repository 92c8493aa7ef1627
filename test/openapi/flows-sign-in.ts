/**
 * Sign-in flows for the response drift test: registration, codes, magic
 * links, refresh, logout, through the real API; every answer is checked by
 * the observer installed on `t`. Steps assert their status so a broken flow
 * is visible here and not only as missing coverage.
 */
import { expect } from 'vitest';
import type { TestApi } from '../helpers/make-app.js';
import { externalDelivery } from '../helpers/service-token.js';

const DEVICE = { 'x-svc-client-ip': '203.0.113.7', 'x-svc-client-user-agent': 'Browser A' };
const delivered = (t: TestApi) => externalDelivery(t.clock.now(), DEVICE);

export interface SignedInUser {
  email: string;
  token: string;
  refreshToken: string;
  sessionId: string;
  sub: string;
}

/** Registration with a phone, both codes, then the email code completes it. */
export async function registerFlow(t: TestApi, email: string, phone: string): Promise<SignedInUser> {
  const reg = await t.call('POST', '/registration/register', { body: { email, phone }, headers: await delivered(t) });
  expect(reg.status).toBe(200);
  expect((await t.call('POST', '/registration/register', { body: { email: 'nope' } })).status).toBe(400);

  const sms = await t.call('POST', '/otp/generate-phone-otp', { token: reg.body.token, headers: await delivered(t) });
  expect(sms.status).toBe(200);
  expect(
    (
      await t.call('POST', '/otp/verify-phone-otp', {
        token: sms.body.token,
        body: { verificationToken: sms.body.delivery.code },
      })
    ).status,
  ).toBe(200);

  const email2 = await t.call('POST', '/otp/generate-email-otp', {
    token: reg.body.token,
    headers: await delivered(t),
  });
  expect(email2.status).toBe(200);
  expect(
    (await t.call('POST', '/otp/verify-email-otp', { token: email2.body.token, body: { verificationToken: 'WRONG1' } }))
      .status,
  ).toBe(401);
  const done = await t.call('POST', '/otp/verify-email-otp', {
    token: email2.body.token,
    body: { verificationToken: email2.body.delivery.code },
  });
  expect(done.status).toBe(200);
  return {
    email,
    token: done.body.token,
    refreshToken: done.body.refreshToken,
    sessionId: done.body.sessionId,
    sub: done.body.sub,
  };
}

/** `/login`, then a code by email and by SMS (the body may be the MFA step when TOTP is on). */
export async function loginWithCodes(t: TestApi, email: string) {
  expect((await t.call('POST', '/login', { body: { identifier: 'not an identifier' } })).status).toBe(400);
  expect((await t.call('POST', '/login', { body: {} })).status).toBe(400);
  const start = await t.call('POST', '/login', { body: { identifier: email } });
  expect(start.status).toBe(200);
  const emailCode = await t.call('POST', '/otp/generate-login-email-otp', {
    token: start.body.token,
    headers: await delivered(t),
  });
  expect(emailCode.status).toBe(200);
  const byEmail = await t.call('POST', '/otp/verify-login-email-otp', {
    token: emailCode.body.token,
    body: { verificationToken: emailCode.body.delivery.code },
  });
  expect(byEmail.status).toBe(200);
  const smsCode = await t.call('POST', '/otp/generate-login-phone-otp', {
    token: start.body.token,
    headers: await delivered(t),
  });
  expect(smsCode.status).toBe(200);
  const bySms = await t.call('POST', '/otp/verify-login-phone-otp', {
    token: smsCode.body.token,
    body: { verificationToken: smsCode.body.delivery.code },
  });
  expect(bySms.status).toBe(200);
  return { start, byEmail, bySms };
}

/** Request, poll (204), verify on the same device, poll again (a session). */
export async function magicLinkFlow(t: TestApi, email: string) {
  const start = await t.call('POST', '/login', { body: { identifier: email } });
  const req = await t.call('POST', '/magic-link', { token: start.body.token, body: {}, headers: await delivered(t) });
  expect(req.status).toBe(200);
  const link = new URL(req.body.delivery.magicLinkUrl).searchParams.get('token')!;
  const pending = await t.call('POST', '/magic-link/check', { token: start.body.token, headers: await delivered(t) });
  expect(pending.status).toBe(204);
  expect((await t.call('POST', '/magic-link/verify/not-a-real-token', { headers: await delivered(t) })).status).toBe(
    400,
  );
  // number_match (the default): the bare verify is the challenge; the picked number completes it.
  const challenge = await t.call('POST', `/magic-link/verify/${link}`, { headers: await delivered(t) });
  expect(challenge.body.status).toBe('confirmation_required');
  expect(
    (
      await t.call('POST', `/magic-link/verify/${link}`, {
        body: { number: req.body.confirmationNumber },
        headers: await delivered(t),
      })
    ).status,
  ).toBe(200);
  const session = await t.call('POST', '/magic-link/check', { token: start.body.token, headers: await delivered(t) });
  expect(session.status).toBe(200);
  return session;
}

/** Rotation, reuse detection, and the three logout forms. */
export async function refreshAndLogoutFlow(t: TestApi, user: SignedInUser) {
  const rotated = await t.call('POST', '/refresh', { token: user.refreshToken });
  expect(rotated.status).toBe(200);
  expect((await t.call('POST', '/refresh', { token: user.refreshToken })).status).toBe(401);
  expect((await t.call('POST', '/refresh')).status).toBe(401);
  const again = await loginWithCodes(t, user.email);
  expect((await t.call('GET', '/logout', { token: again.bySms.body.token })).status).toBe(200);
  const next = await loginWithCodes(t, user.email);
  expect((await t.call('DELETE', '/logout', { token: next.byEmail.body.token })).status).toBe(200);
  expect((await t.call('DELETE', '/logout/all', { token: next.bySms.body.token })).status).toBe(200);
}
