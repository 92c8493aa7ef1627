/**
 * Response drift of the adapter document: the real Hono adapter in front of
 * the real API, driven in cookie and in bearer transport; each answer must
 * have a documented status and match the form of its transport (a token in a
 * cookie-transport body fails, as the cookie forms allow no extra field).
 */
import { describe, expect, it } from 'vitest';
import { buildAdapterDocument } from '../../src/openapi/adapter-document.js';
import { makeHarness, recordingMessaging, settle, type Harness } from '../adapter/helpers.js';
import { createUser } from '../helpers/factories.js';
import { createResponseChecker } from './response-checker.js';

const BEARER = { 'x-svc-auth-transport': 'bearer' };
const checker = createResponseChecker(buildAdapterDocument(), { basePath: '/auth' });

async function harness() {
  const { messages, messaging } = recordingMessaging();
  const h: Harness = await makeHarness({ messaging });
  checker.observeDriver(h.driver);
  const lastCode = async () => {
    await settle();
    return messages.at(-1)!.code!;
  };
  return { h, lastCode };
}

describe('adapter answers match docs/openapi.adapter.json', () => {
  it('cookie transport: registration, sign-in, me, sessions, refresh, organizations, logout', async () => {
    const { h, lastCode } = await harness();
    const reg = await h.send('POST', '/auth/registration/register', { body: { email: 'cookie.person@example.com' } });
    expect(reg.status).toBe(200);
    const verify = await h.send('POST', '/auth/otp/verify-email-otp', {
      cookies: reg.cookies,
      body: { verificationToken: await lastCode() },
    });
    expect(verify.status).toBe(200);
    const cookies = verify.cookies;
    expect((await h.send('GET', '/auth/users/me', { cookies })).status).toBe(200);
    expect((await h.send('GET', '/auth/users/me')).status).toBe(401);
    expect((await h.send('GET', '/auth/sessions', { cookies })).status).toBe(200);
    expect((await h.send('GET', '/auth/step-up/status', { cookies })).status).toBe(200);
    expect((await h.send('GET', '/auth/totp/status', { cookies })).status).toBe(200);
    const org = await h.send('POST', '/auth/organizations', { cookies, body: { name: 'Cookie Org' } });
    expect(org.status).toBe(201);
    const sw = await h.send('POST', `/auth/organizations/${org.body.organization.id}/switch`, { cookies });
    expect(sw.status).toBe(200);
    const refreshed = await h.send('POST', '/auth/refresh', { cookies: sw.cookies });
    expect(refreshed.status).toBe(200);
    expect((await h.send('POST', '/auth/login', { body: { identifier: 'not an identifier' } })).status).toBe(400);
    const login = await h.send('POST', '/auth/login', { body: { identifier: 'cookie.person@example.com' } });
    expect(login.status).toBe(200);
    const gen = await h.send('POST', '/auth/otp/generate-login-email-otp', { cookies: login.cookies });
    expect(gen.status).toBe(200);
    const signIn = await h.send('POST', '/auth/otp/verify-login-email-otp', {
      cookies: gen.cookies,
      body: { verificationToken: await lastCode() },
    });
    expect(signIn.status).toBe(200);
    expect((await h.send('DELETE', '/auth/logout', { cookies: signIn.cookies })).status).toBe(204);
    expect(checker.violations).toEqual([]);
  });

  it('bearer transport: sign-in, me, refresh, organization switch, logout', async () => {
    const { h, lastCode } = await harness();
    const user = await createUser(h.t);
    const login = await h.send('POST', '/auth/login', { headers: BEARER, body: { identifier: user.email } });
    expect(login.status).toBe(200);
    const gen = await h.send('POST', '/auth/otp/generate-login-email-otp', {
      headers: { ...BEARER, authorization: `Bearer ${login.body.token}` },
    });
    expect(gen.status).toBe(200);
    const session = await h.send('POST', '/auth/otp/verify-login-email-otp', {
      headers: { ...BEARER, authorization: `Bearer ${gen.body.token}` },
      body: { verificationToken: await lastCode() },
    });
    expect(session.status).toBe(200);
    const auth = { ...BEARER, authorization: `Bearer ${session.body.token}` };
    expect((await h.send('GET', '/auth/users/me', { headers: auth })).status).toBe(200);
    const org = await h.send('POST', '/auth/organizations', { headers: auth, body: { name: 'Bearer Org' } });
    expect(
      (await h.send('POST', `/auth/organizations/${org.body.organization.id}/switch`, { headers: auth })).status,
    ).toBe(200);
    const refreshed = await h.send('POST', '/auth/refresh', {
      headers: { ...BEARER, authorization: `Bearer ${session.body.refreshToken}` },
    });
    expect(refreshed.status).toBe(200);
    expect(
      (
        await h.send('DELETE', '/auth/logout/all', {
          headers: { ...BEARER, authorization: `Bearer ${refreshed.body.token}` },
        })
      ).status,
    ).toBe(204);
    expect(checker.violations).toEqual([]);
  });

  it('refuses a cookie-transport answer that carries a token', () => {
    const leaked = { message: 'Success', identifierType: 'email', loginMethods: ['email_otp'], token: 'eyJ…' };
    const observed = (transport: 0 | 1) => ({
      method: 'POST',
      path: '/auth/login',
      status: 200,
      body: JSON.stringify(leaked),
      contentType: 'application/json',
      transport,
    });
    expect(checker.check(observed(0))).toMatch(/additional properties/);
  });
});
