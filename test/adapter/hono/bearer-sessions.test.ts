/**
 * Bearer transport on every session-issuing adapter route (contract §5.3,
 * §5.4 step 4, §5.8): the whole verified envelope (`token` and
 * `refreshToken`) comes back in the body, no cookie is read or set, `delivery`
 * is stripped, and the access token works as the bearer of the next call.
 * Everything runs against the real in-process API (and, for OAuth, the real
 * test OpenID provider).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, signIn } from '../../helpers/factories.js';
import { PROVIDER_REDIRECTS, providerConfig, SECRET_ENV, STATE_SECRET } from '../../helpers/oauth.js';
import { startOidcProvider, type TestOidcProvider } from '../../helpers/oidc-provider.js';
import { registerPasskey } from '../../helpers/passkeys.js';
import { codeAt, enrollTotp, STEP_ALIGNED_START_MS, STEP_MS } from '../../helpers/totp.js';
import { makeHarness, recordingMessaging, settle, type Harness, type SendResult } from '../helpers.js';

const BEARER = { 'x-svc-auth-transport': 'bearer' };
const withBearer = (token: string) => ({ ...BEARER, authorization: `Bearer ${token}` });

/** A session envelope in bearer transport: tokens in the body, no cookie, no delivery; the access token works. */
async function expectBearerSession(h: Harness, res: SendResult, userId: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.setCookies).toEqual([]);
  expect(res.body).not.toHaveProperty('delivery');
  expect(res.body).toMatchObject({
    sub: userId,
    sessionId: expect.any(String),
    ttl: expect.any(Number),
    refreshTtl: expect.any(Number),
  });
  expect(res.body.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  expect(res.body.refreshToken).toEqual(expect.any(String));
  const me = await h.send('GET', '/auth/users/me', { headers: withBearer(res.body.token) });
  expect(me.status).toBe(200);
  expect(me.body.user.id).toBe(userId);
  expect(me.setCookies).toEqual([]);
}

describe('bearer transport: every session-issuing route returns the tokens and sets no cookie', () => {
  it('POST /auth/otp/verify-email-otp (registration)', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness({ messaging });
    const reg = await h.send('POST', '/auth/registration/register', {
      headers: BEARER,
      body: { email: 'native.reg@example.com' },
    });
    expect(reg.status).toBe(200);
    await settle();
    const res = await h.send('POST', '/auth/otp/verify-email-otp', {
      headers: withBearer(reg.body.token),
      body: { verificationToken: messages.at(-1)!.code },
    });
    await expectBearerSession(h, res, reg.body.sub);
  });

  it('POST /auth/otp/verify-login-phone-otp', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness({ messaging });
    const user = await createUser(h.t, { phone: '+14155550123', phoneVerified: true });
    const login = await h.send('POST', '/auth/login', { headers: BEARER, body: { identifier: '+14155550123' } });
    expect(login.status).toBe(200);
    const gen = await h.send('POST', '/auth/otp/generate-login-phone-otp', { headers: withBearer(login.body.token) });
    expect(gen.status).toBe(200);
    expect(gen.body).not.toHaveProperty('delivery');
    await settle();
    expect(messages.at(-1)).toMatchObject({ kind: 'otp_sms', channel: 'sms', to: '+14155550123' });
    const res = await h.send('POST', '/auth/otp/verify-login-phone-otp', {
      headers: withBearer(gen.body.token),
      body: { verificationToken: messages.at(-1)!.code },
    });
    await expectBearerSession(h, res, user.id);
  });

  it('POST /auth/magic-link/check', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness({ messaging });
    const user = await createUser(h.t);
    const login = await h.send('POST', '/auth/login', { headers: BEARER, body: { identifier: user.email } });
    const req = await h.send('POST', '/auth/magic-link', { headers: withBearer(login.body.token), body: {} });
    expect(req.status).toBe(200);
    expect(req.body).not.toHaveProperty('delivery');
    await settle();
    const token = new URL(messages.at(-1)!.magicLinkUrl!).searchParams.get('token')!;
    const pending = await h.send('POST', '/auth/magic-link/check', { headers: withBearer(login.body.token) });
    expect(pending.status).toBe(204);
    expect(
      (
        await h.send('POST', `/auth/magic-link/verify/${token}`, {
          headers: BEARER,
          body: { number: req.body.confirmationNumber },
        })
      ).status,
    ).toBe(200);
    const res = await h.send('POST', '/auth/magic-link/check', { headers: withBearer(login.body.token) });
    await expectBearerSession(h, res, user.id);
  });

  it('POST /auth/webAuthn/login/finish', async () => {
    const h = await makeHarness();
    const user = await createUser(h.t);
    const { authenticator, finish: enrolled } = await registerPasskey(h.t, (await signIn(h.t, user)).token);
    expect(enrolled.status).toBe(200);
    const login = await h.send('POST', '/auth/login', {
      headers: BEARER,
      body: { identifier: user.email, passkeyAvailable: true },
    });
    const start = await h.send('POST', '/auth/webAuthn/login/start', {
      headers: withBearer(login.body.token),
      body: {},
    });
    expect(start.status).toBe(200);
    const assertionResponse = await authenticator.assert(start.body);
    const res = await h.send('POST', '/auth/webAuthn/login/finish', {
      headers: withBearer(login.body.token),
      body: { assertionResponse },
    });
    await expectBearerSession(h, res, user.id);
  });

  it('POST /auth/totp/verify-login (bridge), after the MFA step answered with the whole mfa body', async () => {
    const { messages, messaging } = recordingMessaging();
    const h = await makeHarness(
      { messaging },
      { DISABLE_AUTH_RATE_LIMITS: 'true' },
      { clockStartMs: STEP_ALIGNED_START_MS },
    );
    const user = await createUser(h.t);
    const secret = await enrollTotp(h.t, (await signIn(h.t, user)).token);
    h.t.clock.advance(STEP_MS);
    const login = await h.send('POST', '/auth/login', { headers: BEARER, body: { identifier: user.email } });
    const gen = await h.send('POST', '/auth/otp/generate-login-email-otp', { headers: withBearer(login.body.token) });
    await settle();
    const step = await h.send('POST', '/auth/otp/verify-login-email-otp', {
      headers: withBearer(gen.body.token),
      body: { verificationToken: messages.at(-1)!.code },
    });
    expect(step.status).toBe(200);
    expect(step.setCookies).toEqual([]);
    expect(step.body).toMatchObject({ mfaRequired: true, mfaMethods: ['totp'], token: expect.any(String) });
    expect(step.body).not.toHaveProperty('refreshToken');
    const res = await h.send('POST', '/auth/totp/verify-login', {
      headers: withBearer(step.body.token),
      body: { code: codeAt(secret, h.t.clock.now()) },
    });
    await expectBearerSession(h, res, user.id);
  });

  it('POST /auth/organizations/:id/switch returns the whole verified body (token) and sets no cookie', async () => {
    const h = await makeHarness();
    const user = await createUser(h.t);
    const env = await signIn(h.t, user);
    const org = await h.send('POST', '/auth/organizations', {
      headers: withBearer(env.token),
      body: { name: 'Native Org' },
    });
    expect(org.status).toBe(201);
    const orgId = org.body.organization.id;
    const res = await h.send('POST', `/auth/organizations/${orgId}/switch`, { headers: withBearer(env.token) });
    expect(res.status).toBe(200);
    expect(res.setCookies).toEqual([]);
    expect(res.body.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const claims = JSON.parse(Buffer.from(res.body.token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ org_id: orgId, sid: env.sessionId });
    expect(
      (await h.send('GET', '/auth/users/me', { headers: withBearer(res.body.token) })).body.activeOrganization.id,
    ).toBe(orgId);
  });
});

describe('bearer transport: OAuth callback against the real OpenID provider', () => {
  let op: TestOidcProvider;
  beforeAll(async () => {
    op = await startOidcProvider({ redirectUris: PROVIDER_REDIRECTS });
  });
  afterAll(async () => {
    await op?.close();
  });

  it('POST /auth/oauth/:providerId/callback returns the envelope (returnTo kept) and sets no cookie', async () => {
    const h = await makeHarness(
      {},
      {
        LOGIN_METHODS: 'passkey,email_otp,oauth',
        ORIGINS: 'http://app.test,http://localhost:3000',
        OAUTH_STATE_SECRET: STATE_SECRET,
        [SECRET_ENV]: op.clientSecret,
        OAUTH_PROVIDERS: JSON.stringify([providerConfig(op)]),
      },
    );
    op.setAccount('native-oauth', { email: 'native.oauth@example.com', email_verified: true });
    const providers = await h.send('GET', '/auth/oauth/providers', { headers: BEARER });
    expect(providers.body.providers.map((p: { id: string }) => p.id)).toEqual(['testop']);
    const start = await h.send('POST', '/auth/oauth/testop/start', {
      headers: BEARER,
      body: { returnTo: 'http://localhost:3000/after' },
    });
    expect(start.status).toBe(200);
    const { code, state } = await op.authorize(start.body.authorizationUrl, 'native-oauth');
    // Bearer transport: the app keeps the flow binding start returned and sends it back.
    expect(start.body.binding).toEqual(expect.any(String));
    const res = await h.send('POST', '/auth/oauth/testop/callback', {
      headers: BEARER,
      body: { code, state, binding: start.body.binding },
    });
    expect(res.body.returnTo).toBe('http://localhost:3000/after');
    await expectBearerSession(h, res, res.body.sub);
    expect(res.body.email).toBe('native.oauth@example.com');
    // The same callback in cookie transport is S: cookies set, tokens stripped.
    op.setAccount('browser-oauth', { email: 'browser.oauth@example.com', email_verified: true });
    const start2 = await h.send('POST', '/auth/oauth/testop/start', {
      body: { returnTo: 'http://localhost:3000/after' },
    });
    const second = await op.authorize(start2.body.authorizationUrl, 'browser-oauth');
    // Cookie transport: the binding travels in the cookie start set (never in the page).
    expect(start2.body).not.toHaveProperty('binding');
    const browser = await h.send('POST', '/auth/oauth/testop/callback', {
      cookies: start2.cookies,
      body: { code: second.code, state: second.state },
    });
    expect(browser.status).toBe(200);
    expect(browser.body.returnTo).toBe('http://localhost:3000/after');
    expect(browser.text).not.toMatch(/"(token|refreshToken)"\s*:/);
    expect(browser.setCookies.map((s) => s.split('=')[0])).toEqual([
      'svc-ephemeral',
      'svc-oauth-binding',
      'svc-access',
      'svc-refresh',
    ]);
  });
});
