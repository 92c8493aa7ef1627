import { eq } from 'drizzle-orm';
import { decodeJwt, decodeProtectedHeader, importPKCS8, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app.js';
import { utf8, toBase64Url } from '../../../common/encoding.js';
import { generateRsaPem } from '../../../src/crypto/keys.js';
import { signEphemeralToken } from '../../../src/crypto/jwt.js';
import { randomId } from '../../../src/crypto/random.js';
import { authEvents, organizationMemberships, organizations, sessions, users } from '../../../src/db/schema.js';
import { requireEphemeral } from '../../../src/middleware/auth.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { testSigningKey } from '../../helpers/keys.js';
import { makeApi, TEST_ISSUER, type TestApi } from '../../helpers/make-app.js';

/** Signs arbitrary claims with the shared dev key (or another key) to probe the verifier. */
async function forge(
  t: TestApi,
  claims: Record<string, unknown>,
  o: { kid?: string; privatePem?: string; iat?: number; ttl?: number } = {},
) {
  const key = await importPKCS8(o.privatePem ?? (await testSigningKey()).privatePem, 'RS256');
  const iat = o.iat ?? Math.floor(t.clock.now() / 1000);
  return new SignJWT({ iss: TEST_ISSUER, aud: TEST_ISSUER, ...claims })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: o.kid ?? 'dev-main' })
    .setIssuedAt(iat)
    .setExpirationTime(iat + (o.ttl ?? 900))
    .sign(key);
}

/** The full pipeline plus throwaway routes behind `requireEphemeral` (no ephemeral route exists yet). */
function withEphemeralRoutes(t: TestApi) {
  const app = createApp(t.api.deps);
  for (const ctx of ['login', 'registration', 'mfa'] as const) {
    app.post(`/test/ephemeral/${ctx}`, requireEphemeral(ctx), (c) => {
      const e = c.get('ephemeral');
      return c.json({ subject: e.subject, decoy: e.user === null, ctx: e.ctx, typ: e.claims.typ });
    });
  }
  return (path: string, token: string) =>
    app.request(path, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
}

async function setup() {
  const t = await makeApi();
  const user = await createUser(t);
  const session = await signIn(t, user);
  return { t, user, session };
}

const me = (t: TestApi, token: string) => t.call('GET', '/users/me', { token });

describe('access token claims (contract §1.2)', () => {
  it('carries exactly the contract claims and no personal data', async () => {
    const { t, user, session } = await setup();
    expect(decodeProtectedHeader(session.token)).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'dev-main' });
    const claims = decodeJwt(session.token);
    // acr/auth_time/amr: RFC 9470 authentication context (docs/contract-changes.md).
    expect(Object.keys(claims).sort()).toEqual([
      'acr',
      'amr',
      'aud',
      'auth_time',
      'exp',
      'iat',
      'iss',
      'roles',
      'sid',
      'sub',
      'typ',
    ]);
    expect(claims).toMatchObject({
      iss: TEST_ISSUER,
      aud: TEST_ISSUER,
      sub: user.id,
      sid: session.sessionId,
      typ: 'access',
      roles: ['user'],
    });
    expect(claims.iat).toBe(Math.floor(t.clock.now() / 1000));
    expect(claims.exp! - claims.iat!).toBe(900);
    expect(session.ttl).toBe(900);
  });

  it('carries org_id when the session has an active organization', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const now = new Date(t.clock.now());
    const orgId = randomId();
    await t.api.deps.db
      .insert(organizations)
      .values({ id: orgId, name: 'Acme', slug: `acme-${orgId.slice(0, 8)}`, createdAt: now, updatedAt: now });
    await t.api.deps.db
      .insert(organizationMemberships)
      .values({ id: randomId(), organizationId: orgId, userId: user.id, createdAt: now, updatedAt: now });
    const session = await signIn(t, user);
    expect(session.organizationId).toBe(orgId);
    expect(decodeJwt(session.token)['org_id']).toBe(orgId);
  });
});

describe('ephemeral token claims (contract §1.3)', () => {
  it('carries typ, ctx, idt and jti and lives 300 s', async () => {
    const { t, user } = await setup();
    const jti = randomId();
    const token = await signEphemeralToken(
      t.api.deps.keys,
      { sub: user.id, ctx: 'login', idt: 'email', jti },
      { issuer: TEST_ISSUER, nowMs: t.clock.now() },
    );
    const claims = decodeJwt(token);
    expect(Object.keys(claims).sort()).toEqual(['aud', 'ctx', 'exp', 'iat', 'idt', 'iss', 'jti', 'sub', 'typ']);
    expect(claims).toMatchObject({
      iss: TEST_ISSUER,
      aud: TEST_ISSUER,
      sub: user.id,
      typ: 'ephemeral',
      ctx: 'login',
      idt: 'email',
      jti,
    });
    expect(claims.exp! - claims.iat!).toBe(300);
  });
});

describe('typ and ctx separation (contract §0.3)', () => {
  it('refuses an ephemeral token on an access route and writes bearer_token_failed', async () => {
    const { t, user } = await setup();
    const eph = await signEphemeralToken(
      t.api.deps.keys,
      { sub: user.id, ctx: 'login', jti: randomId() },
      { issuer: TEST_ISSUER, nowMs: t.clock.now() },
    );
    const res = await me(t, eph);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'Invalid or expired token' });
    const [event] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'bearer_token_failed'));
    expect(event?.metadata).toEqual({ expected: 'access', presented: 'ephemeral:login', route: '/users/me' });
  });

  it('refuses an access token on an ephemeral route and writes bearer_token_failed', async () => {
    const { t, session } = await setup();
    const call = withEphemeralRoutes(t);
    const res = await call('/test/ephemeral/login', session.token);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'unauthorized', message: 'Invalid or expired token' });
    const [event] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'bearer_token_failed'));
    expect(event?.metadata).toMatchObject({ expected: 'ephemeral:login', presented: 'access' });
  });

  it('refuses an ephemeral token of another ctx and accepts the right one', async () => {
    const { t, user } = await setup();
    const call = withEphemeralRoutes(t);
    const opts = { issuer: TEST_ISSUER, nowMs: t.clock.now() };
    const mfa = await signEphemeralToken(t.api.deps.keys, { sub: user.id, ctx: 'mfa', jti: randomId() }, opts);
    expect((await call('/test/ephemeral/login', mfa)).status).toBe(401);
    expect((await call('/test/ephemeral/registration', mfa)).status).toBe(401);
    const ok = await call('/test/ephemeral/mfa', mfa);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ subject: user.id, decoy: false, ctx: 'mfa', typ: 'ephemeral' });
  });

  it('continues a login token of an unknown or revoked subject as the decoy, but refuses it for mfa', async () => {
    const { t, user } = await setup();
    const call = withEphemeralRoutes(t);
    const opts = { issuer: TEST_ISSUER, nowMs: t.clock.now() };
    const unknown = randomId();
    const login = await signEphemeralToken(t.api.deps.keys, { sub: unknown, ctx: 'login', jti: randomId() }, opts);
    expect(await (await call('/test/ephemeral/login', login)).json()).toMatchObject({ subject: unknown, decoy: true });
    expect(
      (
        await call(
          '/test/ephemeral/mfa',
          await signEphemeralToken(t.api.deps.keys, { sub: unknown, ctx: 'mfa', jti: randomId() }, opts),
        )
      ).status,
    ).toBe(401);
    await t.api.deps.db.update(users).set({ revoked: true }).where(eq(users.id, user.id));
    const revokedLogin = await signEphemeralToken(
      t.api.deps.keys,
      { sub: user.id, ctx: 'login', jti: randomId() },
      opts,
    );
    expect(await (await call('/test/ephemeral/login', revokedLogin)).json()).toMatchObject({
      subject: user.id,
      decoy: true,
    });
    const revokedMfa = await signEphemeralToken(t.api.deps.keys, { sub: user.id, ctx: 'mfa', jti: randomId() }, opts);
    expect((await call('/test/ephemeral/mfa', revokedMfa)).status).toBe(401);
  });

  it('refuses an expired ephemeral token', async () => {
    const { t, user } = await setup();
    const call = withEphemeralRoutes(t);
    const token = await signEphemeralToken(
      t.api.deps.keys,
      { sub: user.id, ctx: 'login', jti: randomId() },
      { issuer: TEST_ISSUER, nowMs: t.clock.now() },
    );
    t.clock.advance((300 + 31) * 1000);
    expect((await call('/test/ephemeral/login', token)).status).toBe(401);
  });
});

describe('access token verification', () => {
  it('accepts a token within the 30 s skew after exp and refuses it after', async () => {
    const { t, session } = await setup();
    t.clock.advance((900 + 29) * 1000);
    expect((await me(t, session.token)).status).toBe(200);
    t.clock.advance(2000);
    const res = await me(t, session.token);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'Invalid or expired token' });
  });

  it('accepts a correctly forged-by-us token (control for the refusals below)', async () => {
    const { t, user, session } = await setup();
    expect(
      (await me(t, await forge(t, { sub: user.id, sid: session.sessionId, typ: 'access', roles: [] }))).status,
    ).toBe(200);
  });

  it('refuses a token of a foreign key, whether its kid is unknown or claims dev-main', async () => {
    const { t, user, session } = await setup();
    const foreign = await generateRsaPem();
    const claims = { sub: user.id, sid: session.sessionId, typ: 'access', roles: [] };
    expect((await me(t, await forge(t, claims, { kid: 'other', privatePem: foreign.privatePem }))).status).toBe(401);
    expect((await me(t, await forge(t, claims, { kid: 'dev-main', privatePem: foreign.privatePem }))).status).toBe(401);
  });

  it('refuses alg:none', async () => {
    const { t, user, session } = await setup();
    const iat = Math.floor(t.clock.now() / 1000);
    const header = toBase64Url(utf8(JSON.stringify({ alg: 'none', typ: 'JWT', kid: 'dev-main' })));
    const payload = toBase64Url(
      utf8(
        JSON.stringify({
          iss: TEST_ISSUER,
          aud: TEST_ISSUER,
          sub: user.id,
          sid: session.sessionId,
          typ: 'access',
          roles: [],
          iat,
          exp: iat + 900,
        }),
      ),
    );
    expect((await me(t, `${header}.${payload}.`)).status).toBe(401);
    expect((await me(t, `${header}.${payload}`)).status).toBe(401);
  });

  it('refuses HS256 signed with the public key (algorithm confusion)', async () => {
    const { t, user, session } = await setup();
    const iat = Math.floor(t.clock.now() / 1000);
    const { publicPem } = await testSigningKey();
    const jwk = (await (await t.call('GET', '/.well-known/jwks.json')).body).keys[0];
    for (const secret of [utf8(publicPem), utf8(JSON.stringify(jwk))]) {
      const token = await new SignJWT({
        iss: TEST_ISSUER,
        aud: TEST_ISSUER,
        sub: user.id,
        sid: session.sessionId,
        typ: 'access',
        roles: [],
      })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: 'dev-main' })
        .setIssuedAt(iat)
        .setExpirationTime(iat + 900)
        .sign(secret);
      expect((await me(t, token)).status).toBe(401);
    }
  });

  it('refuses a wrong iss or aud', async () => {
    const { t, user, session } = await setup();
    const base = { sub: user.id, sid: session.sessionId, typ: 'access', roles: [] };
    expect((await me(t, await forge(t, { ...base, iss: 'http://evil.test' }))).status).toBe(401);
    expect((await me(t, await forge(t, { ...base, aud: 'http://evil.test' }))).status).toBe(401);
  });

  it('refuses an iat in the future beyond the 30 s skew, and an aud array that merely contains the issuer', async () => {
    const { t, user, session } = await setup();
    const base = { sub: user.id, sid: session.sessionId, typ: 'access', roles: [] };
    const now = Math.floor(t.clock.now() / 1000);
    expect((await me(t, await forge(t, base, { iat: now + 25 }))).status).toBe(200); // a clock slightly ahead
    expect((await me(t, await forge(t, base, { iat: now + 120 }))).status).toBe(401);
    expect((await me(t, await forge(t, { ...base, aud: [TEST_ISSUER, 'http://other.test'] }))).status).toBe(401);
    expect((await me(t, await forge(t, { ...base, aud: [TEST_ISSUER] }))).status).toBe(401);
  });

  it('refuses a token whose sid belongs to another user, or has no sid', async () => {
    const { t, session } = await setup();
    const other = await createUser(t);
    expect(
      (await me(t, await forge(t, { sub: other.id, sid: session.sessionId, typ: 'access', roles: [] }))).status,
    ).toBe(401);
    expect((await me(t, await forge(t, { sub: other.id, typ: 'access', roles: [] }))).status).toBe(401);
  });

  it('answers "Missing bearer token" without a bearer, and refuses a malformed one', async () => {
    const { t, session } = await setup();
    for (const authorization of [undefined, `Basic ${session.token}`, 'Bearer', `Bearer ${session.token} extra`]) {
      const res = await t.call('GET', '/users/me', { headers: authorization ? { authorization } : {} });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'unauthorized', message: 'Missing bearer token' });
    }
    const lower = await t.call('GET', '/users/me', { headers: { authorization: `bearer ${session.token}` } });
    expect(lower.status).toBe(200);
    expect((await me(t, 'not.a.jwt')).body).toEqual({ error: 'unauthorized', message: 'Invalid or expired token' });
  });

  it('refuses the token of a revoked session, an expired session or a revoked user', async () => {
    const { t, user, session } = await setup();
    const db = t.api.deps.db;
    await db.update(users).set({ revoked: true }).where(eq(users.id, user.id));
    expect((await me(t, session.token)).status).toBe(401);
    await db.update(users).set({ revoked: false }).where(eq(users.id, user.id));
    expect((await me(t, session.token)).status).toBe(200);
    await db
      .update(sessions)
      .set({ idleExpiresAt: new Date(t.clock.now()) })
      .where(eq(sessions.id, session.sessionId));
    expect((await me(t, session.token)).status).toBe(401);
    await db
      .update(sessions)
      .set({ idleExpiresAt: new Date(t.clock.now() + 1000), revokedAt: new Date(t.clock.now()) })
      .where(eq(sessions.id, session.sessionId));
    expect((await me(t, session.token)).status).toBe(401);
  });

  it('keeps a rotated session’s access token valid until it expires', async () => {
    const { t, session } = await setup();
    expect((await t.call('POST', '/refresh', { token: session.refreshToken })).status).toBe(200);
    expect((await me(t, session.token)).status).toBe(200);
  });
});
