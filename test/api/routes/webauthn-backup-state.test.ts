/**
 * The backup-eligibility rule (WebAuthn L3 §6.1.3, §7.2 step
 * 18): BE is fixed when a credential is created, so an assertion whose BE
 * differs from the stored one (`device_type`) is refused on every path that
 * verifies an assertion (passkey login, passkey step-up) — the challenge is
 * spent, the counter does not move, nothing else is updated. BS may change;
 * each accepted assertion records it in `backed_up`.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, authFailures, credentials, sessions } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { assertWith, loginToken, registerPasskey } from '../../helpers/passkeys.js';
import type { CeremonyOverrides } from '../../helpers/software-authenticator.js';

async function setup(registration: CeremonyOverrides) {
  const t = await makeApi();
  const user = await createUser(t);
  const session = await signIn(t, user);
  const { authenticator, finish } = await registerPasskey(t, session.token, { over: registration });
  expect(finish.status).toBe(200);
  const pre = await loginToken(t, user.id);
  return { t, user, token: session.token, sessionId: session.sessionId, authenticator, pre };
}

async function storedCredential(t: TestApi, id: string) {
  const [row] = await t.api.deps.db.select().from(credentials).where(eq(credentials.id, id));
  return row!;
}

async function reasons(t: TestApi, type: 'webauthn_login_failed' | 'step_up_failed') {
  const rows = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, type));
  return rows.map((r) => r.metadata?.['reason']);
}

async function listedCredential(t: TestApi, token: string, id: string) {
  const me = await t.call('GET', '/users/me', { token });
  expect(me.status).toBe(200);
  return (me.body.credentials as { id: string; deviceType: string; backedUp: boolean }[]).find((c) => c.id === id)!;
}

describe('passkey backup eligibility must not change', () => {
  it('login: a credential registered without BE asserting BE=1,BS=1 is refused like any failed assertion; counter and use are untouched', async () => {
    const { t, authenticator, pre } = await setup({});
    // A first, honest sign-in gives the credential a non-zero counter and a last use.
    expect((await assertWith(t, '/webauthn/login', pre, authenticator, { counter: 7 })).finish.status).toBe(200);
    const before = await storedCredential(t, authenticator.id);
    expect(before).toMatchObject({ deviceType: 'singleDevice', backedUp: false, counter: 7 });

    t.clock.advance(60_000);
    const { finish } = await assertWith(t, '/webauthn/login', pre, authenticator, {
      counter: 8,
      backupEligible: true,
      backedUp: true,
    });
    expect(finish.status).toBe(401);
    expect(finish.body).toEqual({ error: 'authentication_failed', message: 'Authentication failed.' });
    expect(await reasons(t, 'webauthn_login_failed')).toEqual(['backup_eligibility_changed']);
    // Counted for lockout, like every failed passkey login.
    expect(await t.api.deps.db.select().from(authFailures)).toHaveLength(1);
    const after = await storedCredential(t, authenticator.id);
    expect(after).toMatchObject({ deviceType: 'singleDevice', backedUp: false, counter: 7 });
    expect(after.lastUsedAt).toEqual(before.lastUsedAt);
    expect(after.updatedAt).toEqual(before.updatedAt);

    // The refused assertion spent its challenge; the honest authenticator still signs in with the next counter.
    expect((await assertWith(t, '/webauthn/login', pre, authenticator, { counter: 8 })).finish.status).toBe(200);
  });

  it('login: a credential registered with BE asserting BE=0 is refused', async () => {
    const { t, authenticator, pre } = await setup({ backupEligible: true });
    expect((await storedCredential(t, authenticator.id)).deviceType).toBe('multiDevice');
    const { finish } = await assertWith(t, '/webauthn/login', pre, authenticator, { backupEligible: false });
    expect(finish.status).toBe(401);
    expect(finish.body.error).toBe('authentication_failed');
    expect(await reasons(t, 'webauthn_login_failed')).toEqual(['backup_eligibility_changed']);
    const row = await storedCredential(t, authenticator.id);
    expect(row.counter).toBe(0);
    expect(row.lastUsedAt).toBeNull();
  });

  it('login: BE=1 with BS going 0→1 (and back) is accepted and `backedUp` follows BS, as GET /users/me shows', async () => {
    const { t, token, authenticator, pre } = await setup({ backupEligible: true, backedUp: false });
    expect(await listedCredential(t, token, authenticator.id)).toMatchObject({
      deviceType: 'multiDevice',
      backedUp: false,
    });

    t.clock.advance(1_000);
    const up = await assertWith(t, '/webauthn/login', pre, authenticator, { backupEligible: true, backedUp: true });
    expect(up.finish.status).toBe(200);
    expect(await listedCredential(t, token, authenticator.id)).toMatchObject({
      deviceType: 'multiDevice',
      backedUp: true,
    });
    const row = await storedCredential(t, authenticator.id);
    expect(row.lastUsedAt!.getTime()).toBe(t.clock.now());
    expect(row.counter).toBe(1);

    const down = await assertWith(t, '/webauthn/login', pre, authenticator, { backupEligible: true, backedUp: false });
    expect(down.finish.status).toBe(200);
    expect(await listedCredential(t, token, authenticator.id)).toMatchObject({ backedUp: false });
  });

  it('login: BS without BE stays refused (backup_flags) and does not touch the credential', async () => {
    const { t, authenticator, pre } = await setup({});
    const { finish } = await assertWith(t, '/webauthn/login', pre, authenticator, { backedUp: true });
    expect(finish.status).toBe(401);
    expect(await reasons(t, 'webauthn_login_failed')).toEqual(['backup_flags']);
    expect(await storedCredential(t, authenticator.id)).toMatchObject({ backedUp: false, counter: 0 });
  });

  it('step-up: BE changing either way is refused with 403 step_up_failed, the session stays stale and the credential untouched', async () => {
    for (const [registered, asserted] of [
      [{}, { backupEligible: true, backedUp: true }],
      [{ backupEligible: true }, { backupEligible: false }],
    ] satisfies [CeremonyOverrides, CeremonyOverrides][]) {
      const { t, token, sessionId, authenticator } = await setup(registered);
      const { finish } = await assertWith(t, '/step-up/webauthn', token, authenticator, asserted);
      expect(finish.status).toBe(403);
      expect(finish.body.error).toBe('step_up_failed');
      expect(await reasons(t, 'step_up_failed')).toEqual(['backup_eligibility_changed']);
      const [session] = await t.api.deps.db.select().from(sessions).where(eq(sessions.id, sessionId));
      expect(session!.stepUpMethod).toBeNull();
      expect(await storedCredential(t, authenticator.id)).toMatchObject({
        counter: 0,
        lastUsedAt: null,
        backedUp: false,
      });
    }
  });

  it('step-up: an accepted assertion records BS', async () => {
    const { t, token, authenticator } = await setup({ backupEligible: true });
    const { finish } = await assertWith(t, '/step-up/webauthn', token, authenticator, {
      backupEligible: true,
      backedUp: true,
    });
    expect(finish.status).toBe(200);
    expect(await listedCredential(t, token, authenticator.id)).toMatchObject({
      deviceType: 'multiDevice',
      backedUp: true,
    });
  });
});
