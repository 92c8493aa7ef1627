import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { authFailures, webauthnChallenges } from '../../../src/db/schema.js';
import { makeApi, TEST_SERVICE_TOKEN } from '../../helpers/make-app.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { assertWith, loginToken, registerPasskey } from '../../helpers/passkeys.js';
import { SoftwareAuthenticator } from '../../helpers/software-authenticator.js';

/** A decoy subject whose shape byte has bit 0 (hasPasskey) equal to `withPasskey`. */
function decoySubject(withPasskey: boolean): string {
  for (let i = 0; ; i++) {
    const subject = `0f0f0f0f-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const b = createHmac('sha256', TEST_SERVICE_TOKEN).update(`svc/decoy-shape:${subject}`).digest()[0]!;
    if (((b & 1) === 1) === withPasskey) return subject;
  }
}

describe('passkey login for a decoy principal (contract §3.20)', () => {
  it('answers options with the one fabricated credential and stores no challenge', async () => {
    const t = await makeApi();
    const subject = decoySubject(true);
    const token = await loginToken(t, subject);
    const res = await t.call('POST', '/webauthn/login/start', { token, body: {} });
    expect(res.status).toBe(200);
    const id = createHmac('sha256', TEST_SERVICE_TOKEN).update(`svc/decoy-credential:${subject}`).digest('base64url');
    expect(res.body).toMatchObject({
      rpId: 'localhost',
      timeout: 60000,
      userVerification: 'required',
      allowCredentials: [{ id, type: 'public-key' }],
    });
    expect(res.body.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await t.api.deps.db.select().from(webauthnChallenges)).toHaveLength(0);
    // Same answer every time for the same subject (stable shape).
    const again = await t.call('POST', '/webauthn/login/start', { token, body: {} });
    expect(again.body.allowCredentials).toEqual(res.body.allowCredentials);
    const filtered = await t.call('POST', '/webauthn/login/start', { token, body: { credentialId: 'b3RoZXI' } });
    expect(filtered.status).toBe(401);
  });

  it('answers 401 credentials_not_found when the decoy shape has no passkey', async () => {
    const t = await makeApi();
    const res = await t.call('POST', '/webauthn/login/start', {
      token: await loginToken(t, decoySubject(false)),
      body: {},
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'credentials_not_found', message: 'Credentials not found' });
  });

  it('refuses any finish with 401 authentication_failed, counts it, and locks like a real account', async () => {
    const t = await makeApi();
    const subject = decoySubject(true);
    const token = await loginToken(t, subject);
    const authenticator = await SoftwareAuthenticator.create();
    for (let i = 0; i < 10; i++) {
      const { finish } = await assertWith(t, '/webauthn/login', token, authenticator);
      expect(finish.status).toBe(401);
      expect(finish.body.error).toBe('authentication_failed');
    }
    const rows = await t.api.deps.db.select().from(authFailures);
    expect(rows).toHaveLength(10);
    expect(rows.every((r) => r.subject === subject && r.type === 'webauthn_login_failed')).toBe(true);
    const locked = await assertWith(t, '/webauthn/login', token, authenticator);
    expect(locked.finish.status).toBe(423);
  });

  it('holds the login start response until the time floor, for real and decoy principals alike', async () => {
    const t = await makeApi({ env: { LOGIN_RESPONSE_FLOOR_MS: '120' } });
    const t0 = performance.now();
    const res = await t.call('POST', '/webauthn/login/start', {
      token: await loginToken(t, decoySubject(false)),
      body: {},
    });
    expect(res.status).toBe(401);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(115);
    const t1 = performance.now();
    const bad = await t.call('POST', '/webauthn/login/start', {
      token: await loginToken(t, decoySubject(true)),
      body: { credentialId: '!!' },
    });
    expect(bad.status).toBe(400);
    expect(performance.now() - t1).toBeLessThan(115);
  });
});

describe('passkey login after /login (end to end)', () => {
  it('offers passkey in loginMethods exactly when login/start answers options, for unknown identifiers', async () => {
    const t = await makeApi();
    const seen = new Set<boolean>();
    for (let i = 0; i < 12; i++) {
      const login = await t.call('POST', '/login', { body: { identifier: `nobody-${i}@example.com` } });
      expect(login.status).toBe(200);
      const start = await t.call('POST', '/webauthn/login/start', { token: login.body.token, body: {} });
      const offered = login.body.loginMethods.includes('passkey');
      seen.add(offered);
      expect(start.status).toBe(offered ? 200 : 401);
      if (!offered) expect(start.body.error).toBe('credentials_not_found');
    }
    expect(seen.size).toBe(2);
  });

  it('a real user signs in with /login then the passkey', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { authenticator } = await registerPasskey(t, (await signIn(t, user)).token);
    const login = await t.call('POST', '/login', { body: { identifier: user.email } });
    expect(login.body.loginMethods).toContain('passkey');
    const { finish } = await assertWith(t, '/webauthn/login', login.body.token, authenticator);
    expect(finish.status).toBe(200);
    expect(finish.body.sub).toBe(user.id);
  });
});
