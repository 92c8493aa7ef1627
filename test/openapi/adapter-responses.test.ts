/**
 * Response drift of the adapter document: the real Hono adapter in front of
 * the real API, driven in cookie and in bearer transport; each answer must
 * have a documented status and match the form of its transport (a token in a
 * cookie-transport body fails, as the cookie forms allow no extra field).
 */
import { describe, expect, it } from 'vitest';
import { buildAdapterDocument } from '../../src/openapi/adapter-document.js';
import {
  APP_ORIGIN,
  makeHarness,
  recordingMessaging,
  settle,
  signedInBrowser,
  type Harness,
} from '../adapter/helpers.js';
import { createUser } from '../helpers/factories.js';
import { createOAuthClient, pkce } from '../helpers/oauth-server.js';
import { createResponseChecker } from './response-checker.js';

const BEARER = { 'x-svc-auth-transport': 'bearer' };
const checker = createResponseChecker(buildAdapterDocument(), { basePath: '/auth' });

async function harness(apiEnv: Record<string, string> = {}) {
  const { messages, messaging } = recordingMessaging();
  const h: Harness = await makeHarness({ messaging }, apiEnv);
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

  it("the OAuth provider's routes: discovery, preflight, registration, authorize, consent, token, userinfo, introspection, revocation", async () => {
    const issuer = `${APP_ORIGIN}/auth`;
    const provider = {
      enabled: true,
      issuer,
      loginUrl: '/',
      dynamicRegistration: { enabled: true, perIpPerHour: 10, unusedExpiryDays: 30 },
    };
    const { h } = await harness({ OAUTH_SERVER: JSON.stringify(provider) });
    const send = (path: string, init: RequestInit & { cookies?: Record<string, string> } = {}) => {
      const headers = new Headers(init.headers);
      if (init.cookies)
        headers.set(
          'cookie',
          Object.entries(init.cookies)
            .map(([k, v]) => `${k}=${v}`)
            .join('; '),
        );
      return h.driver.request(`/auth${path}`, { ...init, headers, redirect: 'manual' });
    };
    const form = (fields: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    });
    for (const path of [
      '/.well-known/openid-configuration',
      '/.well-known/oauth-authorization-server',
      '/.well-known/jwks.json',
    ])
      expect((await send(path)).status).toBe(200);
    const preflight = await send('/oauth2/token', {
      method: 'OPTIONS',
      headers: { origin: 'https://spa.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    const registered = await send('/oauth2/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['https://spa.example/cb'], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(201);
    const refused = await send('/oauth2/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['javascript:alert(1)'] }),
    });
    expect(refused.status).toBe(400);

    const redirect = 'https://rp.example/cb';
    const client = await createOAuthClient(h.t, { redirectUris: [redirect] });
    const basic = { authorization: `Basic ${btoa(`${client.row.id}:${client.secret}`)}` };
    const { verifier, challenge } = pkce();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.row.id,
      redirect_uri: redirect,
      scope: 'openid email offline_access',
      state: 's1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    expect((await send(`/oauth2/authorize?${query}`)).status).toBe(303);
    expect((await send('/oauth2/authorize?client_id=nobody')).status).toBe(400);
    const { cookies } = await signedInBrowser(h);
    const page = await send(`/oauth2/authorize?${query}`, { cookies });
    expect(page.status).toBe(200);
    const html = await page.text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? '';
    const consent = (csrf: string) =>
      send('/oauth2/consent', {
        ...form({ requestId: field('requestId'), csrf, decision: 'allow' }, { origin: APP_ORIGIN }),
        cookies,
      });
    expect((await consent('forged')).status).toBe(403);
    const allowed = await consent(field('csrf'));
    expect(allowed.status).toBe(303);
    const code = new URL(allowed.headers.get('location')!).searchParams.get('code')!;
    const exchange = (c: string) =>
      send(
        '/oauth2/token',
        form({ grant_type: 'authorization_code', code: c, redirect_uri: redirect, code_verifier: verifier }, basic),
      );
    expect((await exchange('not-a-code')).status).toBe(400);
    const tokens = await exchange(code);
    expect(tokens.status).toBe(200);
    const { access_token: accessToken, refresh_token: refreshToken } = await tokens.json();
    const bearer = { authorization: `Bearer ${accessToken}` };
    expect((await send('/oauth2/userinfo', { headers: bearer })).status).toBe(200);
    expect((await send('/oauth2/userinfo', { method: 'POST', headers: bearer })).status).toBe(200);
    expect((await send('/oauth2/userinfo')).status).toBe(401);
    expect((await send('/oauth2/introspect', form({ token: accessToken }, basic))).status).toBe(200);
    expect((await send('/oauth2/introspect', form({ token: accessToken }))).status).toBe(401);
    expect((await send('/oauth2/revoke', form({ token: refreshToken }, basic))).status).toBe(200);
    expect(checker.violations).toEqual([]);
    expect(checker.unmatched).toEqual([]);
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

  it("checks the provider's pages by media type and its error pages by status range", () => {
    const page = (status: number, body: string, contentType: string) => ({
      method: 'GET',
      path: '/auth/oauth2/authorize',
      status,
      body,
      contentType,
    });
    expect(checker.check(page(429, '<!doctype html>', 'text/html; charset=utf-8'))).toBeNull();
    expect(checker.check(page(400, '{"error":"invalid_request"}', 'application/json'))).toMatch(
      /documented without a body/,
    );
    expect(checker.check(page(500, '<!doctype html>', 'text/html; charset=utf-8'))).toMatch(/status not documented/);
  });
});
