/**
 * `requireAuth` bearer path (contract §5.9): tokens signed with the API's own
 * key but with the wrong claims are refused, so the checks are proven
 * independently of the signature (guards.test.ts covers foreign keys, alg:none
 * and HS256 confusion). Also: a valid cookie wins over a valid bearer of
 * another user.
 */
import { Hono } from 'hono';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { requireAuth, type SvcVariables } from '../../../adapter/hono/index.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { TEST_ISSUER } from '../../helpers/make-app.js';
import { expressMount } from '../express/harness.js';
import {
  APP_ORIGIN,
  COOKIE_SECRET,
  honoMount,
  makeHarness,
  signedInBrowser,
  type Harness,
  type Mount,
} from '../helpers.js';

function app(h: Harness) {
  const a = new Hono<{ Variables: SvcVariables }>();
  a.get(
    '/app',
    requireAuth({
      cookieSecret: COOKIE_SECRET,
      issuer: APP_ORIGIN,
      authServerUrl: TEST_ISSUER,
      audience: TEST_ISSUER,
      fetch: h.opts.fetch,
      now: () => h.t.clock.now(),
    }),
    (c) => c.json({ user: c.get('user') }),
  );
  return a;
}

/** Signs with the API's real private key and kid. */
async function apiSigned(
  h: Harness,
  claims: Record<string, unknown>,
  opts: { iss?: string; aud?: string | string[]; expInSeconds?: number; iatInSeconds?: number | null } = {},
) {
  const now = Math.floor(h.t.clock.now() / 1000);
  const keys = h.t.api.deps.keys;
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: keys.activeKid })
    .setIssuer(opts.iss ?? TEST_ISSUER)
    .setAudience(opts.aud ?? TEST_ISSUER)
    .setExpirationTime(now + (opts.expInSeconds ?? 600));
  // `iatInSeconds: null` leaves `iat` out (the API refuses such a token; so must the adapter).
  if (opts.iatInSeconds !== null) jwt.setIssuedAt(now + (opts.iatInSeconds ?? 0));
  return jwt.sign(keys.privateKey);
}

describe('requireAuth bearer claims (API-signed tokens)', () => {
  it('accepts the control token and refuses wrong iss, wrong aud, wrong or missing typ, missing sub and expiry', async () => {
    const h = await makeHarness();
    const user = await createUser(h.t);
    const env = await signIn(h.t, user);
    const a = app(h);
    const good = { sub: user.id, sid: env.sessionId, typ: 'access', roles: ['user'] };
    const control = await a.request('/app', { headers: { authorization: `Bearer ${await apiSigned(h, good)}` } });
    expect(control.status).toBe(200);
    // iat inside the skew (a clock a few seconds ahead) still passes
    expect(
      (
        await a.request('/app', {
          headers: { authorization: `Bearer ${await apiSigned(h, good, { iatInSeconds: 20 })}` },
        })
      ).status,
    ).toBe(200);

    const { sub: _sub, ...noSub } = good;
    const { typ: _typ, ...noTyp } = good;
    const bad: Record<string, string> = {
      wrongIssuer: await apiSigned(h, good, { iss: 'http://evil.test' }),
      wrongAudience: await apiSigned(h, good, { aud: 'http://other-app.test' }),
      typEphemeral: await apiSigned(h, { ...good, typ: 'ephemeral', ctx: 'login' }),
      typRefresh: await apiSigned(h, { ...good, typ: 'refresh' }),
      noTyp: await apiSigned(h, noTyp),
      noSub: await apiSigned(h, noSub),
      numericSub: await apiSigned(h, { ...good, sub: 42 }),
      expired: await apiSigned(h, good, { expInSeconds: -31 }),
      // jose alone accepts both of these
      iatInTheFuture: await apiSigned(h, good, { iatInSeconds: 120 }),
      audArrayContainingOurs: await apiSigned(h, good, { aud: [TEST_ISSUER, 'http://other-app.test'] }),
      // The API requires iat; the adapter used to accept a token without one
      noIat: await apiSigned(h, good, { iatInSeconds: null }),
      nonNumericIat: await apiSigned(h, { ...good, iat: 'yesterday' }, { iatInSeconds: null }),
    };
    for (const [name, token] of Object.entries(bad)) {
      const res = await a.request('/app', { headers: { authorization: `Bearer ${token}` } });
      expect(res.status, name).toBe(401);
      expect(await res.json(), name).toEqual({ error: 'unauthorized', message: 'Invalid or expired session' });
    }
  });

  it.each([
    ['hono', honoMount],
    ['express', expressMount],
  ] as [string, Mount][])(
    'refuses a bearer without iat on the %s adapter (the API refuses it too)',
    async (_name, mount) => {
      const h = await makeHarness({}, {}, { mount });
      const user = await createUser(h.t);
      const env = await signIn(h.t, user);
      const token = await apiSigned(
        h,
        { sub: user.id, sid: env.sessionId, typ: 'access', roles: ['user'] },
        { iatInSeconds: null },
      );
      const res = await h.send('GET', '/app', { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'unauthorized', message: 'Invalid or expired session' });
      expect((await h.t.call('GET', '/users/me', { token })).status).toBe(401);
      expect((await h.send('GET', '/app', { headers: { authorization: `Bearer ${env.token}` } })).status).toBe(200);
    },
  );

  it('lets a valid cookie win over a valid bearer of another user', async () => {
    const h = await makeHarness();
    const { user: cookieUser, cookies } = await signedInBrowser(h);
    const other = await signIn(h.t, await createUser(h.t));
    const res = await app(h).request('/app', {
      headers: {
        cookie: Object.entries(cookies)
          .map(([k, v]) => `${k}=${v}`)
          .join('; '),
        authorization: `Bearer ${other.token}`,
      },
    });
    expect(res.status).toBe(200);
    const { user } = (await res.json()) as { user: { id: string; email?: string } };
    expect(user.id).toBe(cookieUser.id);
    expect(user.email).toBe(cookieUser.email);
  });
});
