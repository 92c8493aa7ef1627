import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, authFailures, credentials, webauthnChallenges } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { assertWith, loginToken, registerPasskey } from '../../helpers/passkeys.js';
import { SoftwareAuthenticator } from '../../helpers/software-authenticator.js';

async function setup(env?: Record<string, string>) {
  const t = await makeApi(env ? { env } : {});
  const user = await createUser(t);
  const { authenticator } = await registerPasskey(t, (await signIn(t, user)).token);
  const pre = await loginToken(t, user.id);
  return { t, user, authenticator, pre };
}

async function failureReasons(t: TestApi) {
  const rows = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'webauthn_login_failed'));
  return rows.map((r) => r.metadata?.['reason']);
}

describe('passkey login refusals', () => {
  it('refuses a wrong origin, a wrong rpId hash, a tampered signature and a missing UV flag with 401 authentication_failed', async () => {
    const { t, authenticator, pre } = await setup();
    for (const over of [
      { origin: 'https://evil.example' },
      { rpId: 'evil.example' },
      { tamperSignature: true },
      { userVerified: false },
    ]) {
      const { finish } = await assertWith(t, '/webauthn/login', pre, authenticator, over);
      expect(finish.status).toBe(401);
      expect(finish.body).toEqual({ error: 'authentication_failed', message: 'Authentication failed.' });
    }
    expect(await failureReasons(t)).toEqual(['origin', 'rp_id', 'signature', 'user_verification']);
    // Each refusal was counted for lockout.
    expect(await t.api.deps.db.select().from(authFailures)).toHaveLength(4);
  });

  it('refuses a replayed assertion: the challenge is single use', async () => {
    const { t, authenticator, pre } = await setup();
    const start = await t.call('POST', '/webauthn/login/start', { token: pre, body: {} });
    const assertionResponse = await authenticator.assert(start.body);
    const first = await t.call('POST', '/webauthn/login/finish', { token: pre, body: { assertionResponse } });
    expect(first.status).toBe(200);
    const replay = await t.call('POST', '/webauthn/login/finish', { token: pre, body: { assertionResponse } });
    expect(replay.status).toBe(401);
    expect(replay.body.error).toBe('authentication_failed');
    expect(await failureReasons(t)).toEqual(['no_challenge']);
  });

  it('a failed finish spends the challenge, so a correct retry against it is refused', async () => {
    const { t, authenticator, pre } = await setup();
    const start = await t.call('POST', '/webauthn/login/start', { token: pre, body: {} });
    const bad = await authenticator.assert(start.body, { tamperSignature: true });
    expect(
      (await t.call('POST', '/webauthn/login/finish', { token: pre, body: { assertionResponse: bad } })).status,
    ).toBe(401);
    const good = await authenticator.assert(start.body);
    expect(
      (await t.call('POST', '/webauthn/login/finish', { token: pre, body: { assertionResponse: good } })).status,
    ).toBe(401);
  });

  it('refuses an assertion after the challenge expired (5 minutes)', async () => {
    const { t, authenticator, pre } = await setup();
    const start = await t.call('POST', '/webauthn/login/start', { token: pre, body: {} });
    const row = (
      await t.api.deps.db.select().from(webauthnChallenges).where(eq(webauthnChallenges.purpose, 'authentication'))
    )[0]!;
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(300_000);
    t.clock.advance(299_000);
    const fresh = await loginToken(t, row.userId);
    t.clock.advance(1_001);
    const finish = await t.call('POST', '/webauthn/login/finish', {
      token: fresh,
      body: { assertionResponse: await authenticator.assert(start.body) },
    });
    expect(finish.status).toBe(401);
    expect(await failureReasons(t)).toEqual(['no_challenge']);
  });

  it('refuses an unknown credential and a credential of another user', async () => {
    const { t, pre } = await setup();
    const stranger = await SoftwareAuthenticator.create();
    const unknown = await assertWith(t, '/webauthn/login', pre, stranger);
    expect(unknown.finish.status).toBe(401);
    const other = await createUser(t);
    const { authenticator: othersKey } = await registerPasskey(t, (await signIn(t, other)).token);
    const foreign = await assertWith(t, '/webauthn/login', pre, othersKey);
    expect(foreign.finish.status).toBe(401);
    expect(await failureReasons(t)).toEqual(['unknown_credential', 'unknown_credential']);
  });

  it('refuses a non-zero stored counter that does not increase (cloned authenticator)', async () => {
    const { t, authenticator, pre } = await setup();
    expect((await assertWith(t, '/webauthn/login', pre, authenticator, { counter: 5 })).finish.status).toBe(200);
    const same = await assertWith(t, '/webauthn/login', pre, authenticator, { counter: 5 });
    expect(same.finish.status).toBe(401);
    const lower = await assertWith(t, '/webauthn/login', pre, authenticator, { counter: 3 });
    expect(lower.finish.status).toBe(401);
    expect(await failureReasons(t)).toEqual(['counter', 'counter']);
    expect((await assertWith(t, '/webauthn/login', pre, authenticator, { counter: 6 })).finish.status).toBe(200);
    const [row] = await t.api.deps.db.select().from(credentials);
    expect(row!.counter).toBe(6);
  });

  it('accepts an authenticator that always reports counter 0', async () => {
    const { t, authenticator, pre } = await setup();
    for (let i = 0; i < 2; i++)
      expect((await assertWith(t, '/webauthn/login', pre, authenticator, { counter: 0 })).finish.status).toBe(200);
  });

  it('refuses PRF outputs with 400 prf_output_not_allowed and still spends the challenge', async () => {
    const { t, authenticator, pre } = await setup();
    const start = await t.call('POST', '/webauthn/login/start', { token: pre, body: {} });
    const leaky = await authenticator.assert(start.body, {
      clientExtensionResults: { prf: { results: { first: 'c2VjcmV0LWtleS1tYXRlcmlhbA' } } },
    });
    const res = await t.call('POST', '/webauthn/login/finish', { token: pre, body: { assertionResponse: leaky } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('prf_output_not_allowed');
    expect(JSON.stringify(res.body)).not.toContain('c2VjcmV0');
    const clean = await authenticator.assert(start.body);
    expect(
      (await t.call('POST', '/webauthn/login/finish', { token: pre, body: { assertionResponse: clean } })).status,
    ).toBe(401);
  });

  it('locks the account after ten failures (423 before verification, with Retry-After)', async () => {
    const { t, authenticator, pre } = await setup();
    for (let i = 0; i < 10; i++) {
      const { finish } = await assertWith(t, '/webauthn/login', pre, authenticator, { tamperSignature: true });
      expect(finish.status).toBe(401);
    }
    const locked = await assertWith(t, '/webauthn/login', pre, authenticator);
    expect(locked.start.status).toBe(200);
    expect(locked.finish.status).toBe(423);
    expect(locked.finish.body).toMatchObject({ error: 'account_locked', retryAfterSeconds: 900 });
    expect(locked.finish.headers.get('retry-after')).toBe('900');
    // Nothing is counted while the lock holds.
    expect(await t.api.deps.db.select().from(authFailures)).toHaveLength(10);
    t.clock.advance(900_001);
    const pre2 = await loginToken(t, (await t.api.deps.db.select().from(credentials))[0]!.userId);
    expect((await assertWith(t, '/webauthn/login', pre2, authenticator)).finish.status).toBe(200);
  });
});
