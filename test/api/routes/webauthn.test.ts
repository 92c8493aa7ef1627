import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, credentials, totpCredentials } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';
import { assertWith, loginToken, registerPasskey } from '../../helpers/passkeys.js';
import { SoftwareAuthenticator } from '../../helpers/software-authenticator.js';

describe('passkey registration', () => {
  it('registers a passkey with the options of contract §3.6 and lists it on /users/me', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user, 'email_otp');
    const { authenticator, start, finish } = await registerPasskey(t, token, {
      metadata: { friendlyName: 'Laptop', platform: 'macOS', browser: 'Safari' },
    });
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({
      rp: { name: 'svc test', id: 'localhost' },
      user: { name: user.email, displayName: user.email },
      timeout: 60000,
      attestation: 'none',
      excludeCredentials: [],
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
      extensions: { credProps: true },
    });
    expect(start.body.extensions.prf).toBeUndefined();
    expect(start.body.pubKeyCredParams.map((p: { alg: number }) => p.alg)).toEqual([-8, -7, -257]);
    expect(start.body.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);

    expect(finish.status).toBe(200);
    expect(finish.body).toMatchObject({
      message: 'Success',
      credential: {
        id: authenticator.id,
        friendlyName: 'Laptop',
        platform: 'macOS',
        browser: 'Safari',
        prfCapable: false,
        counter: 0,
      },
    });
    expect(finish.body.credential.publicKey).toBeUndefined();

    const me = await t.call('GET', '/users/me', { token });
    expect(me.body.credentials.map((c: { id: string }) => c.id)).toEqual([authenticator.id]);
  });

  it('refuses a pre-auth (login) token on register start and finish', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const pre = await loginToken(t, user.id);
    const start = await t.call('POST', '/webauthn/register/start', { token: pre, body: {} });
    expect(start.status).toBe(401);
    expect(start.body.error).toBe('unauthorized');
    // A finish with a real attestation for a genuine challenge still needs an access token.
    const { token } = await signIn(t, user);
    const real = await t.call('POST', '/webauthn/register/start', { token, body: {} });
    const authenticator = await SoftwareAuthenticator.create();
    const finish = await t.call('POST', '/webauthn/register/finish', {
      token: pre,
      body: { attestationResponse: authenticator.register(real.body) },
    });
    expect(finish.status).toBe(401);
    expect(await t.api.deps.db.select().from(credentials).where(eq(credentials.userId, user.id))).toHaveLength(0);
  });

  it('requires fresh step-up to add a second passkey, then accepts it after a passkey step-up', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const first = await registerPasskey(t, token);
    expect(first.finish.status).toBe(200);

    const second = await registerPasskey(t, token);
    expect(second.start.status).toBe(403);
    expect(second.start.body).toMatchObject({ error: 'step_up_required', fresh: false, maxAgeSeconds: 300 });
    const finishOnly = await t.call('POST', '/webauthn/register/finish', {
      token,
      body: { attestationResponse: second.authenticator.register({ challenge: 'x', rp: { id: 'localhost' } }) },
    });
    expect(finishOnly.status).toBe(403);
    expect(finishOnly.body.error).toBe('step_up_required');

    const stepUp = await assertWith(t, '/step-up/webauthn', token, first.authenticator);
    expect(stepUp.finish.status).toBe(200);
    const again = await registerPasskey(t, token, { authenticator: second.authenticator });
    expect(again.start.body.excludeCredentials).toEqual([
      { id: first.authenticator.id, type: 'public-key', transports: ['internal', 'hybrid'] },
    ]);
    expect(again.finish.status).toBe(200);
  });

  it('requires step-up when the user only has an enabled TOTP credential', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const now = new Date(t.clock.now());
    await t.api.deps.db.insert(totpCredentials).values({
      id: crypto.randomUUID(),
      userId: user.id,
      secretCiphertext: 'x',
      secretIv: 'y',
      issuer: 'svc',
      accountName: user.email,
      enabled: true,
      verifiedAt: now,
      createdAt: now,
      updatedAt: now,
    });
    const { token } = await signIn(t, user);
    const res = await t.call('POST', '/webauthn/register/start', { token, body: {} });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('step_up_required');
  });

  it('refuses a registration with a wrong origin, a wrong rpId hash or without user verification', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    for (const over of [{ origin: 'https://evil.example' }, { rpId: 'evil.example' }, { userVerified: false }]) {
      const { finish } = await registerPasskey(t, token, { over });
      expect(finish.status).toBe(403);
      expect(finish.body.error).toBe('webauthn_registration_failed');
    }
    expect(await t.api.deps.db.select().from(credentials)).toHaveLength(0);
    const failures = await t.api.deps.db
      .select()
      .from(authEvents)
      .where(eq(authEvents.type, 'webauthn_registration_failed'));
    expect(failures.map((e) => e.metadata?.['reason'])).toEqual(['origin', 'rp_id', 'user_verification']);
  });

  it('spends the registration challenge: a replayed or expired attestation is refused', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const authenticator = await SoftwareAuthenticator.create();
    const start = await t.call('POST', '/webauthn/register/start', { token, body: {} });
    const bad = authenticator.register(start.body, { origin: 'https://evil.example' });
    expect(
      (await t.call('POST', '/webauthn/register/finish', { token, body: { attestationResponse: bad } })).status,
    ).toBe(403);
    // The failed attempt spent the challenge: a correct answer to it is now refused too.
    const good = authenticator.register(start.body);
    const replay = await t.call('POST', '/webauthn/register/finish', { token, body: { attestationResponse: good } });
    expect(replay.status).toBe(403);
    expect(replay.body.error).toBe('webauthn_registration_failed');

    const late = await t.call('POST', '/webauthn/register/start', { token, body: {} });
    t.clock.advance(300_001);
    const expired = await t.call('POST', '/webauthn/register/finish', {
      token,
      body: { attestationResponse: authenticator.register(late.body) },
    });
    expect(expired.status).toBe(403);
  });

  it('a new start supersedes the previous registration challenge', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const authenticator = await SoftwareAuthenticator.create();
    const older = await t.call('POST', '/webauthn/register/start', { token, body: {} });
    await t.call('POST', '/webauthn/register/start', { token, body: {} });
    const res = await t.call('POST', '/webauthn/register/finish', {
      token,
      body: { attestationResponse: authenticator.register(older.body) },
    });
    expect(res.status).toBe(403);
  });

  it('requirePrf asks for the PRF extension and refuses an authenticator without PRF', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const without = await registerPasskey(t, token, { start: { requirePrf: true } });
    expect(without.start.body.extensions).toEqual({ credProps: true, prf: {} });
    expect(without.finish.status).toBe(403);
    expect(without.finish.body.error).toBe('prf_required');

    const viaQuery = await t.call('POST', '/webauthn/register/start?requirePrf=true', { token, body: {} });
    expect(viaQuery.body.extensions.prf).toEqual({});
    const authenticator = await SoftwareAuthenticator.create();
    const ok = await t.call('POST', '/webauthn/register/finish', {
      token,
      body: {
        attestationResponse: authenticator.register(viaQuery.body, {
          clientExtensionResults: { prf: { enabled: true } },
        }),
      },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.credential.prfCapable).toBe(true);
  });

  it('requestPrf (body or ?requestPrf=true) asks for PRF without requiring it: an authenticator without PRF still registers', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const without = await registerPasskey(t, token, { start: { requestPrf: true } });
    expect(without.start.body.extensions).toEqual({ credProps: true, prf: {} });
    expect(without.finish.status).toBe(200);
    expect(without.finish.body.credential.prfCapable).toBe(false);

    // A second user (the first now has a factor, so more enrolment needs step-up).
    const other = (await signIn(t, await createUser(t))).token;
    expect((await t.call('POST', '/webauthn/register/start', { token: other, body: {} })).body.extensions).toEqual({
      credProps: true,
    }); // neither flag
    const viaQuery = await t.call('POST', '/webauthn/register/start?requestPrf=true', { token: other, body: {} });
    expect(viaQuery.status).toBe(200);
    expect(viaQuery.body.extensions).toEqual({ credProps: true, prf: {} });
    const authenticator = await SoftwareAuthenticator.create();
    const ok = await t.call('POST', '/webauthn/register/finish', {
      token: other,
      body: {
        attestationResponse: authenticator.register(viaQuery.body, {
          clientExtensionResults: { prf: { enabled: true } },
        }),
      },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.credential.prfCapable).toBe(true);

    expect(
      (
        await t.call('POST', '/webauthn/register/start', {
          token: (await signIn(t, await createUser(t))).token,
          body: { requestPrf: 'yes' },
        })
      ).status,
    ).toBe(400);
  });

  it('refuses a credential id that is already registered with 409', async () => {
    const t = await makeApi();
    const a = await createUser(t);
    const b = await createUser(t);
    const first = await registerPasskey(t, (await signIn(t, a)).token);
    expect(first.finish.status).toBe(200);
    const dup = await registerPasskey(t, (await signIn(t, b)).token, { authenticator: first.authenticator });
    expect(dup.finish.status).toBe(409);
    expect(dup.finish.body.error).toBe('already_exists');
  });

  it('accepts a configured Android apk-key-hash origin and refuses an unlisted one', async () => {
    const apk = 'android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8';
    const t = await makeApi({ env: { ORIGINS: `http://localhost:3000,https://localhost,${apk}` } });
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const android = await SoftwareAuthenticator.create({ origin: apk });
    expect((await registerPasskey(t, token, { authenticator: android })).finish.status).toBe(200);
    const login = await assertWith(t, '/webauthn/login', await loginToken(t, user.id), android);
    expect(login.finish.status).toBe(200);
    const ios = await SoftwareAuthenticator.create({ origin: 'https://localhost' });
    await assertWith(t, '/step-up/webauthn', token, android);
    expect((await registerPasskey(t, token, { authenticator: ios })).finish.status).toBe(200);

    const unlisted = await SoftwareAuthenticator.create({ origin: 'android:apk-key-hash:ZZZZ' });
    const refused = await registerPasskey(t, token, { authenticator: unlisted });
    expect(refused.finish.status).toBe(403);
    const loginUnlisted = await assertWith(t, '/webauthn/login', await loginToken(t, user.id), android, {
      origin: 'android:apk-key-hash:ZZZZ',
    });
    expect(loginUnlisted.finish.status).toBe(401);
  });
});

describe('passkey login', () => {
  it('logs in with a registered passkey; the session works and MFA is satisfied even with TOTP enabled', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { authenticator } = await registerPasskey(t, (await signIn(t, user)).token);
    const now = new Date(t.clock.now());
    await t.api.deps.db.insert(totpCredentials).values({
      id: crypto.randomUUID(),
      userId: user.id,
      secretCiphertext: 'x',
      secretIv: 'y',
      issuer: 'svc',
      accountName: user.email,
      enabled: true,
      verifiedAt: now,
      createdAt: now,
      updatedAt: now,
    });

    const pre = await loginToken(t, user.id);
    const { start, finish } = await assertWith(t, '/webauthn/login', pre, authenticator);
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({
      rpId: 'localhost',
      timeout: 60000,
      userVerification: 'required',
      allowCredentials: [{ id: authenticator.id, type: 'public-key', transports: ['internal', 'hybrid'] }],
    });
    expect(start.body.extensions).toBeUndefined();
    expect(finish.status).toBe(200);
    expect(finish.body).toMatchObject({ message: 'Success', sub: user.id, email: user.email });
    expect(finish.body.mfaRequired).toBeUndefined();

    const me = await t.call('GET', '/users/me', { token: finish.body.token });
    expect(me.status).toBe(200);
    expect(me.body.credentials[0]).toMatchObject({ id: authenticator.id, counter: 1 });
    expect(me.body.credentials[0].lastUsedAt).not.toBeNull();
    const types = (await t.api.deps.db.select().from(authEvents)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['login_challenge', 'webauthn_login_success', 'session_issued']));
  });

  it('passes PRF salts through and filters to PRF-capable credentials', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { authenticator } = await registerPasskey(t, (await signIn(t, user)).token);
    const salt = 'A'.repeat(43);
    const pre = await loginToken(t, user.id);
    const none = await t.call('POST', '/webauthn/login/start', { token: pre, body: { prf: { salt } } });
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('credentials_not_found');
    await t.api.deps.db.update(credentials).set({ prfCapable: true }).where(eq(credentials.id, authenticator.id));
    const ok = await t.call('POST', '/webauthn/login/start', {
      token: pre,
      body: { prf: { salt, secondSalt: 'BBBB' } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.extensions).toEqual({ prf: { eval: { first: salt, second: 'BBBB' } } });
    const short = await t.call('POST', '/webauthn/login/start', { token: pre, body: { prf: { salt: 'AAAA' } } });
    expect(short.status).toBe(400);
    const other = await t.call('POST', '/webauthn/login/start', {
      token: pre,
      body: { credentialId: 'bm90LWEtY3JlZGVudGlhbA' },
    });
    expect(other.status).toBe(401);
    expect(other.body.error).toBe('credentials_not_found');
  });

  it('answers 403 login_method_disabled when passkey is not in login_methods', async () => {
    const t = await makeApi({ env: { LOGIN_METHODS: 'magic_link,email_otp' } });
    const user = await createUser(t);
    const { authenticator } = await registerPasskey(t, (await signIn(t, user)).token);
    const res = await assertWith(t, '/webauthn/login', await loginToken(t, user.id), authenticator);
    expect(res.start.status).toBe(403);
    expect(res.start.body.error).toBe('login_method_disabled');
  });
});
