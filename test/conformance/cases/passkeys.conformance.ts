/** Passkeys: registration, login, step-up and deletion (contract §3.6, §3.7, §3.11). */
import { describe, expect, it } from 'vitest';
import { call, expectError, expectOk, signUp } from '../client.js';
import { assertWith, passkeyLogin, registerPasskey, SoftwareAuthenticator } from '../passkey.js';

describe('passkey registration', () => {
  it('registers a passkey and lists it on /users/me without the public key', async () => {
    const s = await signUp();
    const { authenticator, start, finish } = await registerPasskey(s.token, { metadata: { friendlyName: 'Laptop' } });
    expectOk(start);
    expect(start.body).toMatchObject({
      rp: { id: 'localhost' },
      attestation: 'none',
      authenticatorSelection: { userVerification: 'required' },
    });
    expect(start.body.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expectOk(finish);
    expect(finish.body.credential).toMatchObject({ id: authenticator.id, friendlyName: 'Laptop', counter: 0 });
    expect(finish.body.credential.publicKey).toBeUndefined();
    const me = await call('GET', '/users/me', { token: s.token });
    expect(me.body.credentials.map((c: { id: string }) => c.id)).toEqual([authenticator.id]);
  });

  it('refuses an attestation from another origin with 403 webauthn_registration_failed', async () => {
    const s = await signUp();
    const { finish } = await registerPasskey(s.token, { over: { origin: 'https://evil.example' } });
    expectError(finish, 403, 'webauthn_registration_failed');
  });

  it('refuses an attestation for another rpId', async () => {
    const s = await signUp();
    const { finish } = await registerPasskey(s.token, { over: { rpId: 'evil.example' } });
    expectError(finish, 403, 'webauthn_registration_failed');
  });

  it('refuses an attestation without user verification', async () => {
    const s = await signUp();
    const { finish } = await registerPasskey(s.token, { over: { userVerified: false } });
    expectError(finish, 403, 'webauthn_registration_failed');
  });

  it('spends the registration challenge: a replayed attestation is refused', async () => {
    const s = await signUp();
    const authenticator = await SoftwareAuthenticator.create();
    const start = await call('POST', '/webauthn/register/start', { token: s.token, body: {} });
    const attestationResponse = authenticator.register(start.body);
    expectOk(await call('POST', '/webauthn/register/finish', { token: s.token, body: { attestationResponse } }));
    const replay = await call('POST', '/webauthn/register/finish', { token: s.token, body: { attestationResponse } });
    expect(replay.status).toBeGreaterThanOrEqual(400);
    expect(replay.status).toBeLessThan(500);
  });

  it('refuses a login token on register start', async () => {
    const s = await signUp();
    const login = await call('POST', '/login', { body: { identifier: s.email } });
    expectError(
      await call('POST', '/webauthn/register/start', { token: login.body.token, body: {} }),
      401,
      'unauthorized',
    );
  });

  it('requires a fresh step-up to add a second passkey, then accepts it', async () => {
    const s = await signUp();
    const first = await registerPasskey(s.token);
    expectOk(first.finish);
    const second = await registerPasskey(s.token);
    expectError(second.start, 403, 'step_up_required');
    expect(second.start.body).toMatchObject({ fresh: false, maxAgeSeconds: 300 });
    expectOk((await assertWith('/step-up/webauthn', s.token, first.authenticator)).finish);
    const again = await registerPasskey(s.token, { authenticator: second.authenticator });
    expectOk(again.finish);
    expect(again.start.body.excludeCredentials.map((c: { id: string }) => c.id)).toEqual([first.authenticator.id]);
  });
});

describe('passkey login', () => {
  it('signs in with a registered passkey and the session works', async () => {
    const s = await signUp();
    const { authenticator } = await registerPasskey(s.token);
    const { start, finish } = await passkeyLogin(s.email, authenticator);
    expectOk(start);
    expectOk(finish);
    expect(finish.body).toMatchObject({ sub: s.sub, token: expect.any(String), refreshToken: expect.any(String) });
    expectOk(await call('GET', '/users/me', { token: finish.body.token }));
  });

  it('offers only passkey to a user with a passkey when passkeyAvailable', async () => {
    const s = await signUp();
    await registerPasskey(s.token);
    const login = await call('POST', '/login', { body: { identifier: s.email, passkeyAvailable: true } });
    expect(login.body.loginMethods).toContain('passkey');
  });

  it('refuses a tampered signature with 401 authentication_failed', async () => {
    const s = await signUp();
    const { authenticator } = await registerPasskey(s.token);
    expectError(
      (await passkeyLogin(s.email, authenticator, { tamperSignature: true })).finish,
      401,
      'authentication_failed',
    );
  });

  it('refuses an assertion from another origin', async () => {
    const s = await signUp();
    const { authenticator } = await registerPasskey(s.token);
    expectError(
      (await passkeyLogin(s.email, authenticator, { origin: 'https://evil.example' })).finish,
      401,
      'authentication_failed',
    );
  });

  it('refuses an assertion without user verification', async () => {
    const s = await signUp();
    const { authenticator } = await registerPasskey(s.token);
    expectError(
      (await passkeyLogin(s.email, authenticator, { userVerified: false })).finish,
      401,
      'authentication_failed',
    );
  });

  it('refuses a passkey the user does not own', async () => {
    const a = await signUp();
    const b = await signUp();
    await registerPasskey(a.token);
    const { authenticator: bKey } = await registerPasskey(b.token);
    const { finish } = await passkeyLogin(a.email, bKey);
    expect(finish.status).toBe(401);
  });

  it('spends the login challenge: a replayed assertion is refused', async () => {
    const s = await signUp();
    const { authenticator } = await registerPasskey(s.token);
    const login = await call('POST', '/login', { body: { identifier: s.email } });
    const start = await call('POST', '/webauthn/login/start', { token: login.body.token, body: {} });
    const assertionResponse = await authenticator.assert(start.body);
    expectOk(await call('POST', '/webauthn/login/finish', { token: login.body.token, body: { assertionResponse } }));
    const replay = await call('POST', '/webauthn/login/finish', {
      token: login.body.token,
      body: { assertionResponse },
    });
    expect(replay.status).toBe(401);
  });

  it('refuses a login challenge for step-up (purpose binding)', async () => {
    const s = await signUp();
    const { authenticator } = await registerPasskey(s.token);
    const login = await call('POST', '/login', { body: { identifier: s.email } });
    const start = await call('POST', '/webauthn/login/start', { token: login.body.token, body: {} });
    const assertionResponse = await authenticator.assert(start.body);
    const r = await call('POST', '/step-up/webauthn/finish', { token: s.token, body: { assertionResponse } });
    expectError(r, 403, 'step_up_failed');
  });
});

describe('step-up', () => {
  it('reports a stale status, then fresh after a passkey step-up', async () => {
    const s = await signUp();
    const { authenticator } = await registerPasskey(s.token);
    const before = await call('GET', '/step-up/status', { token: s.token });
    expect(before.body).toMatchObject({ fresh: false, maxAgeSeconds: 300 });
    const { finish } = await assertWith('/step-up/webauthn', s.token, authenticator);
    expectOk(finish);
    expect(finish.body).toMatchObject({ message: 'Success', fresh: true, method: 'webauthn', maxAgeSeconds: 300 });
    expect((await call('GET', '/step-up/status', { token: s.token })).body).toMatchObject({
      fresh: true,
      method: 'webauthn',
    });
  });

  it('keeps the freshness across a refresh rotation', async () => {
    const s = await signUp();
    const { authenticator } = await registerPasskey(s.token);
    expectOk((await assertWith('/step-up/webauthn', s.token, authenticator)).finish);
    const r = await call('POST', '/refresh', { token: s.refreshToken });
    expect((await call('GET', '/step-up/status', { token: r.body.token })).body).toMatchObject({ fresh: true });
  });

  it('answers 403 step_up_unavailable to a user without a passkey', async () => {
    const s = await signUp();
    expectError(
      await call('POST', '/step-up/webauthn/start', { token: s.token, body: {} }),
      403,
      'step_up_unavailable',
    );
  });

  it('does not mark the session fresh after a failed assertion', async () => {
    const s = await signUp();
    const { authenticator } = await registerPasskey(s.token);
    expectError(
      (await assertWith('/step-up/webauthn', s.token, authenticator, { tamperSignature: true })).finish,
      403,
      'step_up_failed',
    );
    expect((await call('GET', '/step-up/status', { token: s.token })).body.fresh).toBe(false);
  });
});

describe('passkey deletion', () => {
  it('refuses deleting the only passkey of a user with other methods unless stepped up, then deletes it', async () => {
    const s = await signUp();
    const { authenticator } = await registerPasskey(s.token);
    const refused = await call('DELETE', '/users/credentials', { token: s.token, body: { id: authenticator.id } });
    expectError(refused, 403, 'step_up_required');
    expectOk((await assertWith('/step-up/webauthn', s.token, authenticator)).finish);
    const ok = await call('DELETE', '/users/credentials', { token: s.token, body: { id: authenticator.id } });
    expectOk(ok);
    expect(ok.body).toEqual({ message: 'Credential deleted' });
    const me = await call('GET', '/users/me', { token: s.token });
    expect(me.body.credentials).toEqual([]);
  });

  it('renames a passkey with POST /users/credentials', async () => {
    const s = await signUp();
    const { authenticator } = await registerPasskey(s.token);
    const r = await call('POST', '/users/credentials', {
      token: s.token,
      body: { id: authenticator.id, friendlyName: 'Phone' },
    });
    expectOk(r);
    const me = await call('GET', '/users/me', { token: s.token });
    expect(me.body.credentials[0].friendlyName).toBe('Phone');
  });
});
