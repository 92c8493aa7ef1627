import { Hono } from 'hono';
import { SignJWT, generateKeyPair } from 'jose';
import { signEphemeralToken } from '../../../src/crypto/jwt.js';
import { describe, expect, it } from 'vitest';
import { getUser, requireAuth, requireRole, type SvcVariables } from '../../../adapter/hono/index.js';
import { createCookieCodec } from '../../../adapter/core/cookies.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { TEST_ISSUER } from '../../helpers/make-app.js';
import { APP_ORIGIN, COOKIE_SECRET, makeHarness, signedInBrowser, type Harness } from '../helpers.js';

function guardedApp(h: Harness, over: Record<string, unknown> = {}) {
  const app = new Hono<{ Variables: SvcVariables }>();
  const auth = requireAuth({
    cookieSecret: COOKIE_SECRET,
    issuer: APP_ORIGIN,
    authServerUrl: TEST_ISSUER,
    audience: TEST_ISSUER,
    fetch: h.opts.fetch,
    now: () => h.t.clock.now(),
    ...over,
  });
  app.get('/app', auth, (c) => c.json({ user: c.get('user') }));
  app.get('/admin', auth, requireRole('admin:read'), (c) => c.json({ ok: true }));
  app.get('/me', auth, async (c) => c.json({ me: await getUser(c, h.opts) }));
  app.get('/me-anon', async (c) => c.json({ me: await getUser(c, h.opts) }));
  return app;
}

const cookieHeader = (cookies: Record<string, string>) =>
  Object.entries(cookies)
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');

describe('requireAuth', () => {
  it('accepts a valid access cookie and sets the user from its payload without calling the API', async () => {
    const h = await makeHarness();
    const { user, env, cookies } = await signedInBrowser(h);
    const app = guardedApp(h);
    const res = await app.request('/app', { headers: { cookie: cookieHeader(cookies) } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.user).toMatchObject({
      id: user.id,
      sub: user.id,
      roles: ['user'],
      email: user.email,
      phone: null,
      organizationId: null,
      sessionId: env.sessionId,
      token: env.token,
    });
    expect(typeof body.user.exp).toBe('number');
    expect(h.upstream).toHaveLength(0);
  });

  it('accepts an API access token as bearer (JWKS) with email and phone absent', async () => {
    const h = await makeHarness();
    const user = await createUser(h.t);
    const env = await signIn(h.t, user);
    const res = await guardedApp(h).request('/app', { headers: { authorization: `Bearer ${env.token}` } });
    expect(res.status).toBe(200);
    const { user: u } = (await res.json()) as any;
    expect(u).toMatchObject({ id: user.id, sessionId: env.sessionId, organizationId: null, roles: ['user'] });
    expect(u).not.toHaveProperty('email');
    expect(u).not.toHaveProperty('phone');
  });

  it('lets the cookie win: an invalid cookie is rejected even with a valid bearer', async () => {
    const h = await makeHarness();
    const env = await signIn(h.t, await createUser(h.t));
    const res = await guardedApp(h).request('/app', {
      headers: { cookie: 'svc-access=garbage', authorization: `Bearer ${env.token}` },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'unauthorized', message: 'Invalid or expired session' });
  });

  it('answers 401 Authentication required without credentials, and ignores bearer when not configured', async () => {
    const h = await makeHarness();
    const env = await signIn(h.t, await createUser(h.t));
    const res = await guardedApp(h).request('/app');
    expect(await res.json()).toEqual({ error: 'unauthorized', message: 'Authentication required' });
    const cookieOnly = guardedApp(h, { authServerUrl: undefined, audience: undefined });
    const r2 = await cookieOnly.request('/app', { headers: { authorization: `Bearer ${env.token}` } });
    expect(r2.status).toBe(401);
    expect(h.upstream).toHaveLength(0);
  });

  it('refuses ephemeral, expired, alg:none, HS256-confused, foreign-key and wrong-audience bearer tokens', async () => {
    const h = await makeHarness();
    const user = await createUser(h.t);
    const env = await signIn(h.t, user);
    const app = guardedApp(h);
    const now = Math.floor(h.t.clock.now() / 1000);
    const claims = { sub: user.id, sid: env.sessionId, typ: 'access', roles: ['admin'] };
    const jwks = (await (await h.t.api.request('/.well-known/jwks.json')).json()) as { keys: { n: string }[] };
    const foreign = await generateKeyPair('RS256');
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const bad: Record<string, string> = {
      ephemeral: await signEphemeralToken(
        h.t.api.deps.keys,
        { sub: user.id, ctx: 'login', jti: crypto.randomUUID() },
        { issuer: TEST_ISSUER, nowMs: h.t.clock.now() },
      ),
      algNone: `${b64({ alg: 'none', kid: 'dev-main' })}.${b64({ ...claims, iss: TEST_ISSUER, aud: TEST_ISSUER, exp: now + 600 })}.`,
      hs256Confusion: await new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'HS256', kid: 'dev-main' })
        .setIssuer(TEST_ISSUER)
        .setAudience(TEST_ISSUER)
        .setExpirationTime(now + 600)
        .sign(new TextEncoder().encode(jwks.keys[0]!.n)),
      foreignKey: await new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: 'dev-main' })
        .setIssuer(TEST_ISSUER)
        .setAudience(TEST_ISSUER)
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(foreign.privateKey),
      foreignKid: await new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: 'other' })
        .setIssuer(TEST_ISSUER)
        .setAudience(TEST_ISSUER)
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(foreign.privateKey),
    };
    for (const [name, token] of Object.entries(bad)) {
      const res = await app.request('/app', { headers: { authorization: `Bearer ${token}` } });
      expect(res.status, name).toBe(401);
    }
    // expiry and audience: the real token after 15 min + skew, and a harness expecting another audience
    h.t.clock.advance(900_000 + 31_000);
    const expired = await app.request('/app', { headers: { authorization: `Bearer ${env.token}` } });
    expect(expired.status).toBe(401);
  });

  it('checks the audience of bearer tokens', async () => {
    const h = await makeHarness();
    const env = await signIn(h.t, await createUser(h.t));
    const app = guardedApp(h, { audience: 'http://other.test' });
    const res = await app.request('/app', { headers: { authorization: `Bearer ${env.token}` } });
    expect(res.status).toBe(401);
  });

  it('answers 502 upstream_unavailable when the JWKS cannot be fetched', async () => {
    const h = await makeHarness();
    const env = await signIn(h.t, await createUser(h.t));
    const app = guardedApp(h, {
      fetch: async () => {
        throw new TypeError('down');
      },
    });
    const res = await app.request('/app', { headers: { authorization: `Bearer ${env.token}` } });
    expect(res.status).toBe(502);
    expect(((await res.json()) as any).error).toBe('upstream_unavailable');
  });

  it('throws at construction for a weak secret or half the bearer options', () => {
    expect(() => requireAuth({ cookieSecret: 'short' })).toThrow(
      'requireAuth: cookieSecret must be at least 32 characters',
    );
    expect(() => requireAuth({} as never)).toThrow('requireAuth: missing cookieSecret');
    expect(() => requireAuth({ cookieSecret: COOKIE_SECRET, authServerUrl: TEST_ISSUER })).toThrow(/together/);
  });
});

describe('requireRole', () => {
  const table: [string[], string | string[], number][] = [
    [['admin'], 'admin:read', 200],
    [['admin'], 'admin:write', 200],
    [['admin'], 'admin', 200],
    [['admin:write'], 'admin:read', 200],
    [['admin:write'], 'admin:write', 200],
    [['admin:write'], 'admin', 403],
    [['admin:read'], 'admin:read', 200],
    [['admin:read'], 'admin:write', 403],
    [['admin:read'], 'admin', 403],
    [['user'], 'admin:read', 403],
    [['user'], ['user', 'admin'], 200],
    [[], 'admin:read', 403],
  ];
  it.each(table)('granted %j, required %j → %i', async (roles, required, status) => {
    const codec = createCookieCodec(COOKIE_SECRET, APP_ORIGIN);
    const app = new Hono<{ Variables: SvcVariables }>();
    app.get('/x', requireAuth({ cookieSecret: COOKIE_SECRET }), requireRole(required), (c) => c.json({ ok: true }));
    const cookie = codec.sign(
      {
        kind: 'access',
        sub: 'u1',
        sessionId: 's1',
        token: 'a.b.c',
        roles,
        email: 'a@b.co',
        phone: null,
        organizationId: null,
      },
      900,
      Date.now(),
    );
    const res = await app.request('/x', { headers: { cookie: `svc-access=${cookie}` } });
    expect(res.status).toBe(status);
    if (status === 403)
      expect(await res.json()).toEqual({
        error: 'forbidden',
        message: 'Insufficient role',
        required: Array.isArray(required) ? required : [required],
      });
  });

  it('answers 401 when requireAuth did not run', async () => {
    const app = new Hono();
    app.get('/x', requireRole('admin'), (c) => c.json({ ok: true }));
    const res = await app.request('/x');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'unauthorized', message: 'Authentication required' });
  });
});

describe('getUser', () => {
  it('loads Me with the cookie credential, the bearer credential, and returns null without one', async () => {
    const h = await makeHarness();
    const { user, env, cookies } = await signedInBrowser(h);
    const app = guardedApp(h);
    const viaCookie = (await (await app.request('/me', { headers: { cookie: cookieHeader(cookies) } })).json()) as any;
    expect(viaCookie.me).toMatchObject({ id: user.id, email: user.email, roles: ['user'] });
    const viaBearer = (await (
      await app.request('/me-anon', { headers: { authorization: `Bearer ${env.token}` } })
    ).json()) as any;
    expect(viaBearer.me).toMatchObject({ id: user.id, email: user.email });
    const anon = (await (await app.request('/me-anon')).json()) as any;
    expect(anon.me).toBeNull();
    const meCall = h.upstream.find((c) => c.path === '/users/me')!;
    expect(meCall.headers.get('x-svc-service-token')).toMatch(/^Bearer /);
  });

  it('returns null (and logs) when the API is unreachable', async () => {
    const h = await makeHarness();
    const { cookies } = await signedInBrowser(h);
    h.intercept = () => {
      throw new TypeError('down');
    };
    const res = (await (
      await guardedApp(h).request('/me-anon', { headers: { cookie: cookieHeader(cookies) } })
    ).json()) as any;
    expect(res.me).toBeNull();
    expect(h.logs.some((l) => l.level === 'error')).toBe(true);
  });
});
