/**
 * RFC 9470 for bearer clients: the 403 `step_up_required` carries a
 * `WWW-Authenticate: Bearer error="insufficient_user_authentication"`
 * challenge, and access tokens carry `acr`, `auth_time` and `amr` describing
 * how the session was authenticated and stepped up, across refresh rotations.
 */
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { sessions } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { assertWith, loginToken, registerPasskey } from '../../helpers/passkeys.js';

const CHALLENGE =
  'Bearer error="insufficient_user_authentication", error_description="A recent step-up authentication is required", acr_values="urn:svc:acr:step-up", max_age=300';

const seconds = (ms: number) => Math.floor(ms / 1000);

async function refresh(t: TestApi, refreshToken: string, idempotencyKey?: string) {
  const res = await t.call('POST', '/refresh', {
    token: refreshToken,
    headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
  });
  expect(res.status).toBe(200);
  return res.body as { token: string; refreshToken: string };
}

async function withPasskey(env: Record<string, string> = {}) {
  const t = await makeApi({ env });
  const user = await createUser(t);
  const signInAtMs = t.clock.now();
  const session = await signIn(t, user, 'email_otp');
  const { authenticator } = await registerPasskey(t, session.token);
  return { t, user, session, authenticator, signInAtMs };
}

describe('RFC 9470 step-up challenge', () => {
  it('answers a stale bearer request with 403 step_up_required and the WWW-Authenticate challenge', async () => {
    const { t, session } = await withPasskey();
    const res = await t.call('POST', '/webauthn/register/start', { token: session.token, body: {} });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'step_up_required', fresh: false, maxAgeSeconds: 300 });
    expect(res.headers.get('www-authenticate')).toBe(CHALLENGE);
  });

  it('lets a browser calling the API directly read the challenge (CORS exposes it)', async () => {
    const { t, session } = await withPasskey({ APP_ORIGINS: 'http://localhost:3000' });
    const res = await t.call('POST', '/webauthn/register/start', {
      token: session.token,
      body: {},
      headers: { origin: 'http://localhost:3000' },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
  });

  it('puts no challenge on other 401/403 answers', async () => {
    const { t, session } = await withPasskey();
    const forbidden = await t.call('GET', '/system-config/admin', { token: session.token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('www-authenticate')).toBeNull();
    const unauthorized = await t.call('GET', '/users/me', { token: 'nope' });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('www-authenticate')).toBeNull();
  });
});

describe('access-token authentication claims', () => {
  it('carries acr, auth_time and amr of the sign-in, and keeps auth_time across rotations', async () => {
    const { t, session, signInAtMs } = await withPasskey();
    expect(decodeJwt(session.token)).toMatchObject({
      acr: 'urn:svc:acr:session',
      auth_time: seconds(signInAtMs),
      amr: ['otp', 'email'],
    });
    t.clock.advance(120_000);
    const rotated = await refresh(t, session.refreshToken);
    const claims = decodeJwt(rotated.token);
    expect(claims).toMatchObject({ acr: 'urn:svc:acr:session', auth_time: seconds(signInAtMs), amr: ['otp', 'email'] });
    expect(claims.iat).toBe(seconds(t.clock.now()));
  });

  it('reflects a step-up after the next refresh, and the token alone decides what the API decides (max_age 300)', async () => {
    const { t, session, authenticator } = await withPasskey();
    t.clock.advance(60_000);
    expect((await assertWith(t, '/step-up/webauthn', session.token, authenticator)).finish.status).toBe(200);
    const steppedUpAtMs = t.clock.now();
    const rotated = await refresh(t, session.refreshToken);
    const claims = decodeJwt(rotated.token) as { acr: string; auth_time: number; amr: string[] };
    expect(claims).toMatchObject({ acr: 'urn:svc:acr:step-up', auth_time: seconds(steppedUpAtMs) });
    expect(claims.amr).toEqual(['otp', 'email', 'pop', 'user', 'mfa']);

    // A resource server's RFC 9470 check (acr + max_age from the challenge) agrees with the API.
    const fresh = (nowMs: number) => claims.acr === 'urn:svc:acr:step-up' && seconds(nowMs) - claims.auth_time <= 300;
    t.clock.advance(299_000);
    expect(fresh(t.clock.now())).toBe(true);
    expect((await t.call('POST', '/webauthn/register/start', { token: rotated.token, body: {} })).status).toBe(200);
    t.clock.advance(2_000);
    expect(fresh(t.clock.now())).toBe(false);
    const stale = await t.call('POST', '/webauthn/register/start', { token: rotated.token, body: {} });
    expect(stale.status).toBe(403);
    expect(stale.headers.get('www-authenticate')).toBe(CHALLENGE);
  });

  it('names a passkey sign-in pop + user', async () => {
    const { t, user, authenticator } = await withPasskey();
    const login = await assertWith(t, '/webauthn/login', await loginToken(t, user.id), authenticator);
    expect(login.finish.status).toBe(200);
    expect(decodeJwt(login.finish.body.token)).toMatchObject({
      acr: 'urn:svc:acr:session',
      auth_time: seconds(t.clock.now()),
      amr: ['pop', 'user'],
    });
  });

  it('keeps the claims on a retried rotation inside the grace window', async () => {
    const { t, session, authenticator, signInAtMs } = await withPasskey({ REFRESH_REUSE_GRACE_SECONDS: '30' });
    expect((await assertWith(t, '/step-up/webauthn', session.token, authenticator)).finish.status).toBe(200);
    await refresh(t, session.refreshToken, 'lost-answer-0123456789');
    t.clock.advance(5_000);
    const retried = await refresh(t, session.refreshToken, 'lost-answer-0123456789');
    expect(decodeJwt(retried.token)).toMatchObject({
      acr: 'urn:svc:acr:step-up',
      auth_time: seconds(signInAtMs),
      amr: ['otp', 'email', 'pop', 'user', 'mfa'],
    });
  });

  it('gives a session from before auth_time was recorded acr only', async () => {
    const { t, session } = await withPasskey();
    await t.api.deps.db
      .update(sessions)
      .set({ authTime: null, authMethod: null })
      .where(eq(sessions.id, session.sessionId));
    const claims = decodeJwt((await refresh(t, session.refreshToken)).token);
    expect(claims.acr).toBe('urn:svc:acr:session');
    expect(claims).not.toHaveProperty('auth_time');
    expect(claims).not.toHaveProperty('amr');
  });
});
