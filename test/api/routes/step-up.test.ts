import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, sessions } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';
import { assertWith, loginToken, registerPasskey } from '../../helpers/passkeys.js';
import { SoftwareAuthenticator } from '../../helpers/software-authenticator.js';

async function setup() {
  const t = await makeApi();
  const user = await createUser(t);
  const session = await signIn(t, user);
  const { authenticator } = await registerPasskey(t, session.token);
  return { t, user, token: session.token, sessionId: session.sessionId, authenticator };
}

describe('passkey step-up (contract §3.11)', () => {
  it('status is not fresh, a passkey step-up makes it fresh for 300 s, then it goes stale', async () => {
    const { t, token, sessionId, authenticator } = await setup();
    const before = await t.call('GET', '/step-up/status', { token });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ fresh: false, method: null, verifiedAt: null, expiresAt: null, maxAgeSeconds: 300 });

    const { start, finish } = await assertWith(t, '/step-up/webauthn', token, authenticator);
    expect(start.body).toMatchObject({ userVerification: 'required', allowCredentials: [{ id: authenticator.id }] });
    expect(finish.status).toBe(200);
    const verifiedAt = new Date(t.clock.now()).toISOString();
    const expiresAt = new Date(t.clock.now() + 300_000).toISOString();
    expect(finish.body).toEqual({
      message: 'Success',
      fresh: true,
      method: 'webauthn',
      verifiedAt,
      expiresAt,
      maxAgeSeconds: 300,
    });
    const [row] = await t.api.deps.db.select().from(sessions).where(eq(sessions.id, sessionId));
    expect(row!.stepUpMethod).toBe('webauthn');

    t.clock.advance(299_000);
    expect((await t.call('GET', '/step-up/status', { token })).body).toMatchObject({
      fresh: true,
      method: 'webauthn',
      verifiedAt,
      expiresAt,
    });
    t.clock.advance(1_000);
    expect((await t.call('GET', '/step-up/status', { token })).body).toEqual({
      fresh: false,
      method: 'webauthn',
      verifiedAt,
      expiresAt,
      maxAgeSeconds: 300,
    });
  });

  it('a +SU? route answers 403 step_up_required with fresh:false, then 200 after step-up', async () => {
    const { t, token, authenticator } = await setup();
    // A second passkey so the deletion is not blocked by the last-credential rule.
    const stepUp1 = await assertWith(t, '/step-up/webauthn', token, authenticator);
    expect(stepUp1.finish.status).toBe(200);
    const second = await registerPasskey(t, token);
    expect(second.finish.status).toBe(200);
    t.clock.advance(300_000);

    const refused = await t.call('DELETE', '/users/credentials', { token, body: { id: second.authenticator.id } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      error: 'step_up_required',
      fresh: false,
      method: 'webauthn',
      maxAgeSeconds: 300,
    });
    expect(refused.body.verifiedAt).toEqual(expect.any(String));
    const events = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'step_up_required'));
    expect(events).toHaveLength(1);

    expect((await assertWith(t, '/step-up/webauthn', token, authenticator)).finish.status).toBe(200);
    const ok = await t.call('DELETE', '/users/credentials', { token, body: { id: second.authenticator.id } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ message: 'Credential deleted' });
  });

  it('step-up start without a passkey answers 403 step_up_unavailable', async () => {
    const t = await makeApi();
    const { token } = await signIn(t, await createUser(t));
    const res = await t.call('POST', '/step-up/webauthn/start', { token, body: {} });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('step_up_unavailable');
  });

  it('a failed or PRF-leaking step-up assertion does not mark the session fresh', async () => {
    const { t, token, authenticator } = await setup();
    const tampered = await assertWith(t, '/step-up/webauthn', token, authenticator, { tamperSignature: true });
    expect(tampered.finish.status).toBe(403);
    expect(tampered.finish.body.error).toBe('step_up_failed');
    const foreign = await assertWith(t, '/step-up/webauthn', token, await SoftwareAuthenticator.create());
    expect(foreign.start.status).toBe(200);
    expect(foreign.finish.status).toBe(403);
    const prf = await assertWith(t, '/step-up/webauthn', token, authenticator, {
      clientExtensionResults: { prf: { results: { first: 'AAAA' } } },
    });
    expect(prf.finish.status).toBe(400);
    expect(prf.finish.body.error).toBe('prf_output_not_allowed');
    const noUv = await assertWith(t, '/step-up/webauthn', token, authenticator, { userVerified: false });
    expect(noUv.finish.status).toBe(403);
    expect((await t.call('GET', '/step-up/status', { token })).body.fresh).toBe(false);
  });

  it('a login challenge cannot be used for step-up (purpose binding)', async () => {
    const { t, token, authenticator } = await setup();
    const start = await t.call('POST', '/step-up/webauthn/start', { token, body: {} });
    const assertionResponse = await authenticator.assert(start.body);
    // The login route looks for an `authentication` challenge: the step-up one does not count.
    const pre = await loginToken(t, (await t.call('GET', '/users/me', { token })).body.user.id);
    expect((await t.call('POST', '/webauthn/login/finish', { token: pre, body: { assertionResponse } })).status).toBe(
      401,
    );
    // The step-up challenge itself is still live.
    expect(
      (
        await t.call('POST', '/step-up/webauthn/finish', {
          token,
          body: { assertionResponse: await authenticator.assert(start.body) },
        })
      ).status,
    ).toBe(200);
  });
});

describe('requireStepUp (+SU) with a passkey step-up (contract §4.5)', () => {
  it('device replacement answers 403 step_up_required with fresh:false, then 200 after a passkey step-up, then 403 once stale', async () => {
    const t = await makeApi();
    const admin = await createUser(t, { roles: ['admin:write'] });
    const { token } = await signIn(t, admin);
    const { authenticator } = await registerPasskey(t, token);
    const target = await createUser(t);
    const { authenticator: targetKey } = await registerPasskey(t, (await signIn(t, target)).token);
    const path = `/admin/users/${target.id}/recovery/device-replacement`;
    const body = { proofing: { method: 'in_person', evidenceRef: 'ticket-42' } };

    const refused = await t.call('POST', path, { token, body });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: 'step_up_required',
      message: 'Recent step-up authentication is required',
      fresh: false,
      method: null,
      verifiedAt: null,
      expiresAt: null,
      maxAgeSeconds: 300,
    });

    expect((await assertWith(t, '/step-up/webauthn', token, authenticator)).finish.status).toBe(200);
    const ok = await t.call('POST', path, { token, body });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ userId: target.id, removedCredentials: 1 });
    // The target's passkey is gone: it can no longer sign in with it.
    const login = await assertWith(t, '/webauthn/login', await loginToken(t, target.id), targetKey);
    expect(login.start.status).toBe(401);
    expect(login.start.body.error).toBe('credentials_not_found');

    t.clock.advance(300_000);
    const stale = await t.call('POST', path, { token, body });
    expect(stale.status).toBe(403);
    expect(stale.body).toMatchObject({ error: 'step_up_required', fresh: false, method: 'webauthn' });
  });
});
