import { describe, expect, it } from 'vitest';
import { codeAt, STEP_ALIGNED_START_MS } from '../../helpers/totp.js';
import { createUser } from '../../helpers/factories.js';
import { makeHarness, recordingMessaging, settle, type Harness, type SendResult } from '../helpers.js';

const SECRETS = /"(token|refreshToken|delivery)"\s*:/;
const BEARER = { 'x-svc-auth-transport': 'bearer' };

function noSecrets(res: SendResult, ...values: string[]) {
  expect(res.text).not.toMatch(SECRETS);
  for (const v of values) expect(res.text).not.toContain(v);
}

async function registerInBrowser(h: Harness, messages: { code?: string }[], email: string) {
  const reg = await h.send('POST', '/auth/registration/register', { body: { email } });
  expect(reg.status).toBe(200);
  await settle();
  const code = messages.at(-1)!.code!;
  noSecrets(reg, code);
  const verify = await h.send('POST', '/auth/otp/verify-email-otp', {
    cookies: reg.cookies,
    body: { verificationToken: code },
  });
  return { reg, verify, code };
}

describe('registration through the adapter (contract §4.1)', () => {
  it('sets the registration cookie, delivers the code to the handler, then issues session cookies; no token or code in any body', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness({ messaging });
    const { reg, verify, code } = await registerInBrowser(h, messages, 'new.person@example.com');
    expect(Object.keys(reg.body).sort()).toEqual(['message', 'sub', 'ttl']);
    expect(reg.setCookies[0]).toMatch(
      /^svc-ephemeral=[^;]+; Max-Age=300; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax$/,
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      kind: 'otp_email',
      channel: 'email',
      to: 'new.person@example.com',
      appName: 'localhost:3000',
      subject: 'localhost:3000 - Verify your email',
    });
    expect(messages[0]!.text).toContain(code);
    expect(messages[0]!.text).toContain('5 minutes');
    const regCall = h.upstream.find((c) => c.path === '/registration/register')!;
    expect(regCall.headers.get('x-svc-auth-delivery-mode')).toBe('external');

    expect(verify.status).toBe(200);
    noSecrets(verify, code);
    expect(verify.body).toMatchObject({ message: 'Success', email: 'new.person@example.com' });
    expect(verify.setCookies.map((s) => s.split('=')[0])).toEqual(['svc-ephemeral', 'svc-access', 'svc-refresh']);
    expect(verify.setCookies[0]).toBe(
      'svc-ephemeral=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax',
    );
    const me = await h.send('GET', '/auth/users/me', { cookies: verify.cookies });
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ email: 'new.person@example.com', emailVerified: true });
    for (const l of h.logs) expect(l.line).not.toContain(code);
  });

  it('a delivery failure does not change the browser answer', async () => {
    const { messages, messaging } = recordingMessaging({ fail: true });
    const h = await makeHarness({ messaging });
    const reg = await h.send('POST', '/auth/registration/register', { body: { email: 'fails@example.com' } });
    expect(reg.status).toBe(200);
    expect(Object.keys(reg.body).sort()).toEqual(['message', 'sub', 'ttl']);
    await settle();
    expect(messages).toHaveLength(1);
    expect(
      h.logs.some((l) => l.level === 'error' && l.line.includes('[REDACTED]') && !l.line.includes('fails@example.com')),
    ).toBe(true);
  });

  it('without messaging the API delivers itself and `delivery` never reaches the browser', async () => {
    const h = await makeHarness();
    const reg = await h.send('POST', '/auth/registration/register', { body: { email: 'self@example.com' } });
    expect(reg.status).toBe(200);
    noSecrets(reg);
    expect(
      h.upstream.find((c) => c.path === '/registration/register')!.headers.get('x-svc-auth-delivery-mode'),
    ).toBeNull();
  });

  it('missing or invalid registration cookie → 401 and the invalid cookie is cleared', async () => {
    const h = await makeHarness();
    const none = await h.send('POST', '/auth/otp/verify-email-otp', { body: { verificationToken: 'ABCDEF' } });
    expect(none.body).toEqual({ error: 'unauthorized', message: 'Registration session required' });
    const bad = await h.send('POST', '/auth/otp/verify-email-otp', {
      cookies: { 'svc-ephemeral': 'x.y.z' },
      body: { verificationToken: 'ABCDEF' },
    });
    expect(bad.status).toBe(401);
    expect(bad.setCookies.map((s) => s.split(';')[0])).toEqual(['svc-ephemeral=']);
    expect(h.upstream).toHaveLength(0);
  });
});

describe('login through the adapter (contract §4.2)', () => {
  it('email OTP: /login sets the pre-auth cookie with {message, identifierType, loginMethods}; resend re-sets it; verify issues the session', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness({ messaging });
    const user = await createUser(h.t);
    const login = await h.send('POST', '/auth/login', { body: { identifier: user.email } });
    expect(login.status).toBe(200);
    expect(Object.keys(login.body).sort()).toEqual(['identifierType', 'loginMethods', 'message']);
    expect(login.body.loginMethods).toContain('email_otp');
    h.t.clock.advance(2_000);
    const gen = await h.send('POST', '/auth/otp/generate-login-email-otp', { cookies: login.cookies });
    expect(gen.status).toBe(200);
    noSecrets(gen);
    expect(gen.setCookies[0]).toMatch(/^svc-ephemeral=[^;]+; Max-Age=300; /);
    expect(gen.cookies['svc-ephemeral']).not.toBe(login.cookies['svc-ephemeral']);
    await settle();
    const code = messages.at(-1)!.code!;
    const verify = await h.send('POST', '/auth/otp/verify-login-email-otp', {
      cookies: gen.cookies,
      body: { verificationToken: code },
    });
    expect(verify.status).toBe(200);
    noSecrets(verify, code);
    expect(verify.body.sub).toBe(user.id);
    expect(verify.cookies['svc-access']).toBeTruthy();
  });

  it('magic link: request, verify on another device, poll gets the session exactly once', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness({ messaging });
    const user = await createUser(h.t);
    const login = await h.send('POST', '/auth/login', { body: { identifier: user.email } });
    const req = await h.send('POST', '/auth/magic-link', { cookies: login.cookies, body: {} });
    expect(req.status).toBe(200);
    noSecrets(req);
    await settle();
    const msg = messages.at(-1)!;
    expect(msg).toMatchObject({
      kind: 'magic_link_email',
      to: user.email,
      subject: 'localhost:3000 - Your sign-in link',
    });
    expect(msg.html).toContain(msg.magicLinkUrl);
    const token = new URL(msg.magicLinkUrl!).searchParams.get('token')!;
    noSecrets(req, token);
    const pending = await h.send('POST', '/auth/magic-link/check', { cookies: login.cookies });
    expect(pending.status).toBe(204);
    expect(pending.text).toBe('');
    const challenge = await h.send('POST', `/auth/magic-link/verify/${token}`);
    expect(challenge.body.status).toBe('confirmation_required');
    expect((await h.send('POST', '/auth/magic-link/check', { cookies: login.cookies })).status).toBe(204);
    const verified = await h.send('POST', `/auth/magic-link/verify/${token}`, {
      body: { number: req.body.confirmationNumber },
    });
    expect(verified.status).toBe(200);
    const done = await h.send('POST', '/auth/magic-link/check', { cookies: login.cookies });
    expect(done.status).toBe(200);
    noSecrets(done);
    expect(done.cookies['svc-access']).toBeTruthy();
    const again = await h.send('POST', '/auth/magic-link/check', { cookies: login.cookies });
    expect(again.status).toBe(204);
    for (const l of h.logs) expect(l.line).not.toContain(token);
  });

  it('MFA: a TOTP user gets the MFA step in the pre-auth cookie and completes it through the bridge', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness(
      { messaging },
      { DISABLE_AUTH_RATE_LIMITS: 'true' },
      { clockStartMs: STEP_ALIGNED_START_MS },
    );
    const { verify } = await registerInBrowser(h, messages, 'totp.user@example.com');
    let cookies = verify.cookies;
    const start = await h.send('POST', '/auth/totp/enroll/start', { cookies });
    expect(start.status).toBe(200);
    const secret: string = start.body.secret;
    const enroll = await h.send('POST', '/auth/totp/enroll/verify', {
      cookies,
      body: { code: codeAt(secret, h.t.clock.now()) },
    });
    expect(enroll.status).toBe(200);
    expect((await h.send('GET', '/auth/totp/status', { cookies })).body.enabled).toBe(true);
    await h.send('DELETE', '/auth/logout', { cookies });

    h.t.clock.advance(60_000);
    const login = await h.send('POST', '/auth/login', { body: { identifier: 'totp.user@example.com' } });
    await h.send('POST', '/auth/otp/generate-login-email-otp', { cookies: login.cookies });
    await settle();
    const step = await h.send('POST', '/auth/otp/verify-login-email-otp', {
      cookies: login.cookies,
      body: { verificationToken: messages.at(-1)!.code! },
    });
    expect(step.status).toBe(200);
    expect(step.body).toMatchObject({ mfaRequired: true, mfaMethods: ['totp'] });
    noSecrets(step);
    expect(step.setCookies.map((s) => s.split('=')[0])).toEqual(['svc-ephemeral']);
    cookies = step.cookies;
    const done = await h.send('POST', '/auth/totp/verify-login', {
      cookies,
      body: { code: codeAt(secret, h.t.clock.now()) },
    });
    expect(done.status).toBe(200);
    noSecrets(done);
    expect(done.cookies['svc-access']).toBeTruthy();
    h.t.clock.advance(30_000);
    const stepUp = await h.send('POST', '/auth/totp/verify-mfa', {
      cookies: done.cookies,
      body: { code: codeAt(secret, h.t.clock.now()) },
    });
    expect(stepUp.status).toBe(200);
    expect(stepUp.body).toMatchObject({ fresh: true, method: 'totp' });
  });

  it('the TOTP bridge answers 401 unauthorized with a message without an access token and makes no upstream call', async () => {
    const h = await makeHarness();
    const res = await h.send('GET', '/auth/totp/status');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'Access session required' });
    expect(h.upstream).toHaveLength(0);
  });
});

describe('bearer transport on session-issuing routes', () => {
  it('login + OTP returns token and refreshToken in the body and sets no cookie', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness({ messaging });
    const user = await createUser(h.t);
    const login = await h.send('POST', '/auth/login', { headers: BEARER, body: { identifier: user.email } });
    expect(login.status).toBe(200);
    expect(typeof login.body.token).toBe('string');
    expect(login.body).not.toHaveProperty('delivery');
    const gen = await h.send('POST', '/auth/otp/generate-login-email-otp', {
      headers: { ...BEARER, authorization: `Bearer ${login.body.token}` },
    });
    expect(gen.status).toBe(200);
    expect(gen.body).not.toHaveProperty('delivery');
    await settle();
    const verify = await h.send('POST', '/auth/otp/verify-login-email-otp', {
      headers: { ...BEARER, authorization: `Bearer ${gen.body.token}` },
      body: { verificationToken: messages.at(-1)!.code! },
    });
    expect(verify.status).toBe(200);
    expect(typeof verify.body.token).toBe('string');
    expect(typeof verify.body.refreshToken).toBe('string');
    for (const r of [login, gen, verify]) expect(r.setCookies).toEqual([]);
  });

  it('registration returns the token (minus delivery) and sets no cookie', async () => {
    const { messaging } = recordingMessaging();
    const h = await makeHarness({ messaging });
    const reg = await h.send('POST', '/auth/registration/register', {
      headers: BEARER,
      body: { email: 'native@example.com' },
    });
    expect(reg.status).toBe(200);
    expect(Object.keys(reg.body).sort()).toEqual(['message', 'sub', 'token', 'ttl']);
    expect(reg.setCookies).toEqual([]);
  });
});
