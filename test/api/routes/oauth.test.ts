/**
 * OAuth login against a real OpenID provider (oidc-provider on 127.0.0.1):
 * real authorization codes, PKCE-enforcing token endpoint, id_token and userinfo.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authEvents, oauthIdentities, users } from '../../../src/db/schema.js';
import { createUser } from '../../helpers/factories.js';
import { APP_CALLBACK, makeOAuthApi, oauthRoundTrip, PROVIDER_REDIRECTS, providerConfig } from '../../helpers/oauth.js';
import { startOidcProvider, type TestOidcProvider } from '../../helpers/oidc-provider.js';

let op: TestOidcProvider;
let n = 0;
/** A fresh provider account with the given claims. */
const account = (claims: { email?: string; email_verified?: boolean; name?: string }) => {
  const id = `acct-${++n}-${Math.random().toString(36).slice(2, 8)}`;
  op.setAccount(id, claims);
  return id;
};

beforeAll(async () => {
  op = await startOidcProvider({ redirectUris: PROVIDER_REDIRECTS });
});
afterAll(async () => {
  await op?.close();
});

describe('OAuth login: happy path', () => {
  it('creates a verified user with default roles, links the identity and issues a session; the second sign-in reuses the identity', async () => {
    const t = await makeOAuthApi(op);
    const sub = account({ email: 'New.Person@Example.com', email_verified: true, name: 'New Person' });

    const first = await oauthRoundTrip(t, op, sub);
    expect(first.start.body.provider).toEqual({
      id: 'testop',
      name: 'Test OP',
      scopes: ['openid', 'email', 'profile'],
    });
    const authUrl = new URL(first.start.body.authorizationUrl);
    expect(authUrl.searchParams.get('redirect_uri')).toBe(APP_CALLBACK);
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(first.callback.status).toBe(200);
    expect(first.callback.body).toMatchObject({
      message: 'Success',
      email: 'new.person@example.com',
      roles: ['user'],
      ttl: 900,
    });
    expect(first.callback.body.returnTo).toBeUndefined();
    const me = await t.call('GET', '/users/me', { token: first.callback.body.token });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe('new.person@example.com');

    const [user] = await t.api.deps.db.select().from(users).where(eq(users.email, 'new.person@example.com'));
    expect(user).toMatchObject({ verified: true, emailVerified: true, roles: ['user'], phone: null });
    const identities = await t.api.deps.db.select().from(oauthIdentities);
    expect(identities).toHaveLength(1);
    expect(identities[0]).toMatchObject({
      userId: user!.id,
      providerId: 'testop',
      providerSubject: sub,
      email: 'new.person@example.com',
    });
    expect(identities[0]!.profile).toEqual({ email: 'new.person@example.com', name: 'New Person' });
    // Provider tokens are neither stored nor returned.
    expect(JSON.stringify(first.callback.body)).not.toMatch(/id_token|access_token/);

    const types = (await t.api.deps.db.select({ type: authEvents.type }).from(authEvents)).map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'oauth_login_started',
        'user_created',
        'oauth_identity_linked',
        'oauth_login_success',
        'session_issued',
      ]),
    );

    // Second sign-in: the stored identity resolves the same user, even after the provider email changes.
    op.setAccount(sub, { email: 'changed@example.com', email_verified: true });
    const second = await oauthRoundTrip(t, op, sub);
    expect(second.callback.status).toBe(200);
    expect(second.callback.body.sub).toBe(user!.id);
    expect(second.callback.body.sessionId).not.toBe(first.callback.body.sessionId);
    expect(await t.api.deps.db.select().from(users)).toHaveLength(1);
    expect(await t.api.deps.db.select().from(oauthIdentities)).toHaveLength(1);
  });

  it('links a first sign-in to the existing local user with the same verified email', async () => {
    const t = await makeOAuthApi(op);
    const local = await createUser(t, { email: 'linked@example.com' });
    const sub = account({ email: 'LINKED@example.com', email_verified: true });
    const { callback } = await oauthRoundTrip(t, op, sub);
    expect(callback.status).toBe(200);
    expect(callback.body.sub).toBe(local.id);
    const [identity] = await t.api.deps.db.select().from(oauthIdentities);
    expect(identity).toMatchObject({ userId: local.id, providerSubject: sub });
    const linked = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'oauth_identity_linked'));
    expect(linked).toHaveLength(1);
    expect(linked[0]!.userId).toBe(local.id);
  });
});

describe('OAuth login: account-linking refusals', () => {
  it('refuses a matching local email when accountLinking is disabled, with the signup-disabled body', async () => {
    const t = await makeOAuthApi(op, { providers: [providerConfig(op, { accountLinking: 'disabled' })] });
    await createUser(t, { email: 'taken@example.com' });
    const { callback } = await oauthRoundTrip(t, op, account({ email: 'taken@example.com', email_verified: true }));
    expect(callback.status).toBe(403);
    expect(callback.body).toEqual({ error: 'oauth_signup_disabled', message: 'OAuth signup is disabled' });
    expect(await t.api.deps.db.select().from(oauthIdentities)).toHaveLength(0);
    const [failed] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'oauth_login_failed'));
    expect(failed!.metadata).toMatchObject({ providerId: 'testop', reason: 'linking_disabled' });
  });

  it('refuses a new user when allowSignup is false', async () => {
    const t = await makeOAuthApi(op, { providers: [providerConfig(op, { allowSignup: false })] });
    const { callback } = await oauthRoundTrip(t, op, account({ email: 'nobody@example.com', email_verified: true }));
    expect(callback.status).toBe(403);
    expect(callback.body).toEqual({ error: 'oauth_signup_disabled', message: 'OAuth signup is disabled' });
    expect(await t.api.deps.db.select().from(users)).toHaveLength(0);
  });

  it('refuses an unverified provider email on a stored identity when requireEmailVerified is true', async () => {
    const t = await makeOAuthApi(op, { providers: [providerConfig(op, { requireEmailVerified: true })] });
    const sub = account({ email: 'strict@example.com', email_verified: true });
    expect((await oauthRoundTrip(t, op, sub)).callback.status).toBe(200);
    op.setAccount(sub, { email: 'strict@example.com', email_verified: false });
    const { callback } = await oauthRoundTrip(t, op, sub);
    expect(callback.status).toBe(400);
    expect(callback.body).toEqual({
      error: 'oauth_email_not_verified',
      code: 'oauth_email_not_verified',
      message: 'OAuth profile email is not verified',
    });
  });

  it('accepts an unverified provider email on a stored identity when requireEmailVerified is false', async () => {
    const t = await makeOAuthApi(op);
    const sub = account({ email: 'lax@example.com', email_verified: true });
    expect((await oauthRoundTrip(t, op, sub)).callback.status).toBe(200);
    op.setAccount(sub, { email: 'lax@example.com', email_verified: false });
    expect((await oauthRoundTrip(t, op, sub)).callback.status).toBe(200);
  });

  it('never links or creates through an unverified provider email', async () => {
    const t = await makeOAuthApi(op);
    await createUser(t, { email: 'victim@example.com' });
    const link = await oauthRoundTrip(t, op, account({ email: 'victim@example.com', email_verified: false }));
    expect(link.callback.status).toBe(400);
    expect(link.callback.body.error).toBe('oauth_email_not_verified');
    const create = await oauthRoundTrip(t, op, account({ email: 'fresh@example.com' }));
    expect(create.callback.status).toBe(400);
    expect(create.callback.body.error).toBe('oauth_email_not_verified');
    expect(await t.api.deps.db.select().from(oauthIdentities)).toHaveLength(0);
  });

  it('refuses a profile without an email with oauth_missing_email (+code)', async () => {
    const t = await makeOAuthApi(op);
    const { callback } = await oauthRoundTrip(t, op, account({}));
    expect(callback.status).toBe(400);
    expect(callback.body).toEqual({
      error: 'oauth_missing_email',
      code: 'oauth_missing_email',
      message: 'OAuth profile did not include an email address',
    });
  });

  it('refuses a revoked user with 403 not_allowed', async () => {
    const t = await makeOAuthApi(op);
    const sub = account({ email: 'revoked@example.com', email_verified: true });
    expect((await oauthRoundTrip(t, op, sub)).callback.status).toBe(200);
    await t.api.deps.db.update(users).set({ revoked: true }).where(eq(users.email, 'revoked@example.com'));
    const { callback } = await oauthRoundTrip(t, op, sub);
    expect(callback.status).toBe(403);
    expect(callback.body.error).toBe('not_allowed');
  });

  it('claims an unverified local account: verified, unverified phone cleared, owner grant for OWNER_EMAIL', async () => {
    const t = await makeOAuthApi(op, { env: { OWNER_EMAIL: 'owner@example.com' } });
    const local = await createUser(t, {
      email: 'owner@example.com',
      verified: false,
      emailVerified: false,
      phone: '+14155550100',
      phoneVerified: false,
    });
    const { callback } = await oauthRoundTrip(t, op, account({ email: 'owner@example.com', email_verified: true }));
    expect(callback.status).toBe(200);
    expect(callback.body.sub).toBe(local.id);
    expect(callback.body.roles).toEqual(['user', 'admin']);
    const [row] = await t.api.deps.db.select().from(users).where(eq(users.id, local.id));
    expect(row).toMatchObject({ verified: true, emailVerified: true, phone: null, roles: ['user', 'admin'] });
  });

  it('answers the MFA step instead of a session for a user with enabled TOTP', async () => {
    const t = await makeOAuthApi(op);
    const local = await createUser(t, { email: 'mfa@example.com' });
    const { totpCredentials } = await import('../../../src/db/schema.js');
    const now = new Date(t.clock.now());
    await t.api.deps.db.insert(totpCredentials).values({
      id: crypto.randomUUID(),
      userId: local.id,
      secretCiphertext: 'x',
      secretIv: 'y',
      issuer: 'svc',
      accountName: local.email,
      enabled: true,
      verifiedAt: now,
      createdAt: now,
      updatedAt: now,
    });
    const { callback } = await oauthRoundTrip(t, op, account({ email: 'mfa@example.com', email_verified: true }), {
      body: { returnTo: 'http://app.test/after' },
    });
    expect(callback.status).toBe(200);
    expect(callback.body).toMatchObject({
      message: 'MFA required',
      mfaRequired: true,
      mfaMethods: ['totp'],
      sub: local.id,
      ttl: 300,
      returnTo: 'http://app.test/after',
    });
    expect(callback.body.refreshToken).toBeUndefined();
  });
});

describe('OAuth login: returnTo', () => {
  it('keeps a returnTo on an allowed origin and returns it from the callback', async () => {
    const t = await makeOAuthApi(op);
    const { callback } = await oauthRoundTrip(t, op, account({ email: 'rt1@example.com', email_verified: true }), {
      body: { returnTo: 'http://localhost:3000/dashboard?tab=1' },
    });
    expect(callback.status).toBe(200);
    expect(callback.body.returnTo).toBe('http://localhost:3000/dashboard?tab=1');
  });

  it('drops a returnTo on another origin (including look-alikes) silently', async () => {
    const t = await makeOAuthApi(op);
    for (const returnTo of [
      'https://evil.example/steal',
      'http://app.test.evil.example/x',
      'http://app.test:8080/x',
      'javascript:alert(1)',
      '/relative',
    ]) {
      const { callback } = await oauthRoundTrip(
        t,
        op,
        account({ email: `rt-${++n}@example.com`, email_verified: true }),
        { body: { returnTo } },
      );
      expect(callback.status).toBe(200);
      expect(callback.body.returnTo).toBeUndefined();
    }
  });
});
