/**
 * WebAuthn challenge binding and PRF-output refusal on the paths the other
 * passkey suites do not reach (contract §2.7, §3.6): challenges are bound to
 * their user and consumed atomically (concurrent finishes mint one session),
 * and PRF outputs are refused at registration and for decoys too.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authFailures, credentials, sessions } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';
import { loginToken, registerPasskey } from '../../helpers/passkeys.js';
import { SoftwareAuthenticator } from '../../helpers/software-authenticator.js';

const PRF_OUTPUT = { prf: { enabled: true, results: { first: 'c2VjcmV0LWtleS1tYXRlcmlhbA' } } };

describe('PRF outputs are refused everywhere (contract §3.6)', () => {
  it('at registration: 400 prf_output_not_allowed, nothing stored, the value not echoed, the challenge spent', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const authenticator = await SoftwareAuthenticator.create();
    const start = await t.call('POST', '/webauthn/register/start', { token, body: { requirePrf: true } });
    expect(start.status).toBe(200);
    const leaky = authenticator.register(start.body, { clientExtensionResults: PRF_OUTPUT });
    const res = await t.call('POST', '/webauthn/register/finish', { token, body: { attestationResponse: leaky } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'prf_output_not_allowed', message: 'PRF output must not be sent to the server' });
    expect(await t.api.deps.db.select().from(credentials)).toHaveLength(0);
    for (const l of t.logs) expect(l.line).not.toContain('c2VjcmV0');
    // The challenge was spent by the refused finish: a clean answer to it is refused too.
    const clean = authenticator.register(start.body, { clientExtensionResults: { prf: { enabled: true } } });
    const retry = await t.call('POST', '/webauthn/register/finish', { token, body: { attestationResponse: clean } });
    expect(retry.status).toBe(403);
    expect(retry.body.error).toBe('webauthn_registration_failed');
  });

  it('for a decoy login: the same 400 as a real account, and no lockout failure counted', async () => {
    const t = await makeApi();
    const decoy = (await t.call('POST', '/login', { body: { identifier: 'nobody@example.com' } })).body;
    const start = await t.call('POST', '/webauthn/login/start', { token: decoy.token, body: {} });
    expect(start.status).toBe(200);
    const stranger = await SoftwareAuthenticator.create();
    const leaky = await stranger.assert(start.body, { clientExtensionResults: PRF_OUTPUT });
    const res = await t.call('POST', '/webauthn/login/finish', {
      token: decoy.token,
      body: { assertionResponse: leaky },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'prf_output_not_allowed', message: 'PRF output must not be sent to the server' });
    expect(await t.api.deps.db.select().from(authFailures)).toHaveLength(0);
  });
});

describe('no pre-auth token can enroll a passkey (contract §3.6)', () => {
  it('refuses registration and login ephemeral tokens, and a refresh token, on register start and finish', async () => {
    const t = await makeApi();
    const reg = await t.call('POST', '/registration/register', { body: { email: 'planter@example.com' } });
    expect(reg.status).toBe(200);
    const user = await createUser(t);
    const session = await signIn(t, user);
    const login = await t.call('POST', '/login', { body: { identifier: user.email } });
    const real = await t.call('POST', '/webauthn/register/start', { token: session.token, body: {} });
    const attestationResponse = (await SoftwareAuthenticator.create()).register(real.body);
    for (const [name, token] of [
      ['registration', reg.body.token as string],
      ['login', login.body.token as string],
      ['refresh', session.refreshToken],
    ] as const) {
      const start = await t.call('POST', '/webauthn/register/start', { token, body: {} });
      expect(start.status, name).toBe(401);
      expect(start.body.error, name).toBe('unauthorized');
      const finish = await t.call('POST', '/webauthn/register/finish', { token, body: { attestationResponse } });
      expect(finish.status, name).toBe(401);
    }
    expect(await t.api.deps.db.select().from(credentials)).toHaveLength(0);
    // Control: the access token's own finish still works with that (unspent) challenge.
    expect(
      (await t.call('POST', '/webauthn/register/finish', { token: session.token, body: { attestationResponse } }))
        .status,
    ).toBe(200);
  });
});

describe('challenge binding and atomic consumption (contract §2.7)', () => {
  it('a challenge issued to one user cannot be answered by another user, and stays live for its owner', async () => {
    const t = await makeApi();
    const alice = await createUser(t);
    const bob = await createUser(t);
    const { authenticator: aliceKey } = await registerPasskey(t, (await signIn(t, alice)).token);
    const { authenticator: bobKey } = await registerPasskey(t, (await signIn(t, bob)).token);
    const alicePre = await loginToken(t, alice.id);
    const bobPre = await loginToken(t, bob.id);

    const aliceStart = await t.call('POST', '/webauthn/login/start', { token: alicePre, body: {} });
    // Bob signs Alice's challenge with his own, genuine passkey: he has no live challenge, so it fails.
    const stolen = await t.call('POST', '/webauthn/login/finish', {
      token: bobPre,
      body: { assertionResponse: await bobKey.assert(aliceStart.body) },
    });
    expect(stolen.status).toBe(401);
    expect(stolen.body).toEqual({ error: 'authentication_failed', message: 'Authentication failed.' });
    const ok = await t.call('POST', '/webauthn/login/finish', {
      token: alicePre,
      body: { assertionResponse: await aliceKey.assert(aliceStart.body) },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.sub).toBe(alice.id);
  });

  it('five concurrent finishes of one login challenge mint exactly one session', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { authenticator } = await registerPasskey(t, (await signIn(t, user)).token);
    const before = (await t.api.deps.db.select().from(sessions).where(eq(sessions.userId, user.id))).length;
    const pre = await loginToken(t, user.id);
    const start = await t.call('POST', '/webauthn/login/start', { token: pre, body: {} });
    const assertionResponse = await authenticator.assert(start.body);
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        t.call('POST', '/webauthn/login/finish', { token: pre, body: { assertionResponse } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401, 401, 401]);
    const after = await t.api.deps.db.select().from(sessions).where(eq(sessions.userId, user.id));
    expect(after.length - before).toBe(1);
  });

  it('five concurrent step-up finishes of one challenge succeed once', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const { token } = await signIn(t, user);
    const { authenticator } = await registerPasskey(t, token);
    const start = await t.call('POST', '/step-up/webauthn/start', { token, body: {} });
    const assertionResponse = await authenticator.assert(start.body);
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        t.call('POST', '/step-up/webauthn/finish', { token, body: { assertionResponse } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 403, 403, 403, 403]);
  });
});
