/**
 * Session results (contract §5.4): before any cookie is set or any token is
 * handed to a native client, the API's token is verified against its JWKS and
 * must match the envelope (`typ`, `sub`, `sid`; `ctx: mfa` for the MFA step).
 * The upstream answers here are real envelopes and real API-signed tokens,
 * recombined the way a compromised or confused upstream could (the only
 * simulated part: a forged token cannot be had any other way).
 */
import { SignJWT, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { signEphemeralToken } from '../../../src/crypto/jwt.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { TEST_ISSUER } from '../../helpers/make-app.js';
import { loginToken } from '../../helpers/passkeys.js';
import { makeHarness, type Harness } from '../helpers.js';

const BEARER = { 'x-svc-auth-transport': 'bearer' };
const ROUTE = '/auth/otp/verify-login-email-otp';
const RAW = '/otp/verify-login-email-otp';

/** Answers the next call to `rawPath` with `body` (status 200). */
function answer(h: Harness, rawPath: string, body: Record<string, unknown>) {
  h.intercept = (call) =>
    call.path === rawPath
      ? new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } })
      : undefined;
}

/** Two real sessions: `a` (the envelope's user) and `b` (another user), plus a second session of `a`. */
async function sessions(h: Harness) {
  const a = await createUser(h.t);
  const b = await createUser(h.t);
  const envA = await signIn(h.t, a);
  const envA2 = await signIn(h.t, a);
  const envB = await signIn(h.t, b);
  const preAuth = h.cookie({ kind: 'ephemeral', sub: a.id, token: await loginToken(h.t, a.id) }, 300);
  return { a, envA, envA2, envB, cookies: { 'svc-ephemeral': preAuth } };
}

async function expectRefused(h: Harness, cookies: Record<string, string>) {
  const res = await h.send('POST', ROUTE, { cookies, body: { verificationToken: 'ABCDEF' } });
  expect(res.status).toBe(502);
  expect(res.body).toEqual({ error: 'invalid_upstream_response', message: 'Invalid signed response from auth server' });
  expect(res.setCookies).toEqual([]);
  expect(res.text).not.toMatch(/"(token|refreshToken)"/);
  const bearer = await h.send('POST', ROUTE, {
    headers: { ...BEARER, authorization: 'Bearer x.y.z' },
    body: { verificationToken: 'ABCDEF' },
  });
  expect(bearer.status).toBe(502);
  expect(bearer.text).not.toMatch(/"(token|refreshToken)"/);
}

describe('session result: the token is verified against the envelope before anything is set', () => {
  it('accepts the genuine envelope (numeric-string TTLs allowed) as the control case', async () => {
    const h = await makeHarness();
    const { envA, cookies } = await sessions(h);
    answer(h, RAW, { ...envA, ttl: '900', refreshTtl: String(envA.refreshTtl) });
    const res = await h.send('POST', ROUTE, { cookies, body: { verificationToken: 'ABCDEF' } });
    expect(res.status).toBe(200);
    expect(res.setCookies.map((s) => s.split('=')[0])).toEqual(['svc-ephemeral', 'svc-access', 'svc-refresh']);
    expect(res.setCookies[1]).toMatch(/; Max-Age=900; /);
  });

  it('refuses another user’s real token in the envelope (sub mismatch)', async () => {
    const h = await makeHarness();
    const { envA, envB, cookies } = await sessions(h);
    answer(h, RAW, { ...envA, token: envB.token });
    await expectRefused(h, cookies);
  });

  it('refuses a real token of another session of the same user (sid mismatch)', async () => {
    const h = await makeHarness();
    const { envA, envA2, cookies } = await sessions(h);
    answer(h, RAW, { ...envA, token: envA2.token });
    await expectRefused(h, cookies);
  });

  it('refuses an ephemeral token where an access token belongs', async () => {
    const h = await makeHarness();
    const { a, envA, cookies } = await sessions(h);
    answer(h, RAW, { ...envA, token: await loginToken(h.t, a.id) });
    await expectRefused(h, cookies);
  });

  it('refuses a token signed by a foreign key under the API’s kid, and a missing token', async () => {
    const h = await makeHarness();
    const { a, envA, cookies } = await sessions(h);
    const foreign = await generateKeyPair('RS256');
    const now = Math.floor(h.t.clock.now() / 1000);
    const forged = await new SignJWT({ sub: a.id, sid: envA.sessionId, typ: 'access', roles: ['admin'] })
      .setProtectedHeader({ alg: 'RS256', kid: 'dev-main' })
      .setIssuer(TEST_ISSUER)
      .setAudience(TEST_ISSUER)
      .setIssuedAt(now)
      .setExpirationTime(now + 900)
      .sign(foreign.privateKey);
    answer(h, RAW, { ...envA, token: forged, roles: ['admin'] });
    await expectRefused(h, cookies);
    const { token: _drop, ...withoutToken } = envA;
    answer(h, RAW, withoutToken);
    await expectRefused(h, cookies);
  });

  it('refuses an envelope without a refresh token string or with a non-positive refreshTtl', async () => {
    const h = await makeHarness();
    const { envA, cookies } = await sessions(h);
    answer(h, RAW, { ...envA, refreshToken: '' });
    await expectRefused(h, cookies);
    answer(h, RAW, { ...envA, refreshTtl: -1 });
    await expectRefused(h, cookies);
  });
});

describe('session result: the MFA step', () => {
  const mfaBody = (sub: string, token: string) => ({
    message: 'MFA required',
    mfaRequired: true,
    mfaMethods: ['totp'],
    sub,
    token,
    ttl: 300,
  });

  it('sets the pre-auth cookie only for an ephemeral ctx-mfa token of the same subject', async () => {
    const h = await makeHarness();
    const { a, envA, envB, cookies } = await sessions(h);
    const mfa = (sub: string) =>
      signEphemeralToken(
        h.t.api.deps.keys,
        { sub, ctx: 'mfa', jti: crypto.randomUUID() },
        { issuer: TEST_ISSUER, nowMs: h.t.clock.now() },
      );

    answer(h, RAW, mfaBody(a.id, await mfa(a.id)));
    const ok = await h.send('POST', ROUTE, { cookies, body: { verificationToken: 'ABCDEF' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ message: 'MFA required', mfaRequired: true, mfaMethods: ['totp'], sub: a.id, ttl: 300 });
    expect(ok.setCookies.map((s) => s.split('=')[0])).toEqual(['svc-ephemeral']);

    for (const token of [await loginToken(h.t, a.id), envA.token, await mfa(envB.sub)]) {
      answer(h, RAW, mfaBody(a.id, token));
      await expectRefused(h, cookies);
    }
  });
});

describe('session result: other token-carrying answers', () => {
  it('/auth/login refuses an ephemeral token not signed by the API and sets no cookie', async () => {
    const h = await makeHarness();
    const user = await createUser(h.t);
    const foreign = await generateKeyPair('RS256');
    const now = Math.floor(h.t.clock.now() / 1000);
    const forged = await new SignJWT({ sub: user.id, typ: 'ephemeral', ctx: 'login', jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'RS256', kid: 'dev-main' })
      .setIssuer(TEST_ISSUER)
      .setAudience(TEST_ISSUER)
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(foreign.privateKey);
    answer(h, '/login', {
      message: 'Success',
      identifierType: 'email',
      loginMethods: ['email_otp'],
      sub: user.id,
      token: forged,
      ttl: 300,
    });
    const res = await h.send('POST', '/auth/login', { body: { identifier: user.email } });
    expect(res.status).toBe(502);
    expect(res.body.error).toBe('invalid_upstream_response');
    expect(res.setCookies).toEqual([]);
    const bearer = await h.send('POST', '/auth/login', { headers: BEARER, body: { identifier: user.email } });
    expect(bearer.status).toBe(502);
    expect(bearer.text).not.toContain(forged);
  });

  it('organization switch refuses a token for another session and keeps the access cookie', async () => {
    const h = await makeHarness();
    const { envA, envB } = await sessions(h);
    const access = h.cookie(
      {
        kind: 'access',
        sub: envA.sub,
        sessionId: envA.sessionId,
        token: envA.token,
        roles: envA.roles,
        email: envA.email,
        phone: null,
        organizationId: null,
      },
      envA.ttl,
    );
    const orgId = '00000000-0000-4000-8000-000000000001';
    answer(h, `/organizations/${orgId}/switch`, {
      message: 'Success',
      token: envB.token,
      sub: envA.sub,
      sessionId: envA.sessionId,
      organizationId: orgId,
      roles: envA.roles,
      email: envA.email,
      phone: null,
      ttl: 900,
    });
    const res = await h.send('POST', `/auth/organizations/${orgId}/switch`, { cookies: { 'svc-access': access } });
    expect(res.status).toBe(502);
    expect(res.body.error).toBe('invalid_upstream_response');
    expect(res.setCookies).toEqual([]);
  });
});

describe('session result: refresh answers for another user', () => {
  it('refuses a genuine envelope of another user on /auth/refresh and in ensureCookies (sub ≠ the refresh cookie’s sub)', async () => {
    const h = await makeHarness();
    const a = await createUser(h.t);
    const envA = await signIn(h.t, a);
    const envB = await signIn(h.t, await createUser(h.t));
    const cookies = {
      'svc-refresh': h.cookie({ kind: 'refresh', sub: a.id, refreshToken: envA.refreshToken }, envA.refreshTtl),
    };
    answer(h, '/refresh', { ...envB });
    const route = await h.send('POST', '/auth/refresh', { cookies });
    expect(route.status).toBe(502);
    expect(route.body.error).toBe('invalid_upstream_response');
    expect(route.setCookies).toEqual([]);
    answer(h, '/refresh', { ...envB, refreshToken: `${envB.refreshToken}x` }); // a distinct token: no dedup replay
    const ensured = await h.send('GET', '/auth/sessions', {
      cookies: {
        'svc-refresh': h.cookie({ kind: 'refresh', sub: a.id, refreshToken: `${envA.refreshToken}y` }, envA.refreshTtl),
      },
    });
    expect(ensured.status).toBe(502);
    expect(ensured.setCookies).toEqual([]);
    expect(h.upstream.filter((c) => c.path === '/sessions')).toEqual([]);
  });
});
