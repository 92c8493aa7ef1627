import { and, eq, isNull } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { randomId } from '../../../src/crypto/random.js';
import { authEvents, credentials, sessions, totpCredentials, type UserRow } from '../../../src/db/schema.js';
import { issueSession } from '../../../src/services/session/issuance.js';
import { createUser, signIn, testClient } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { assertWith, loginToken, registerPasskey } from '../../helpers/passkeys.js';
import { codeAt, enrollTotp, STEP_ALIGNED_START_MS, STEP_MS, totpEnv } from '../../helpers/totp.js';

const path = (userId: string) => `/admin/users/${userId}/recovery/device-replacement`;
const proofing = { method: 'in_person', evidenceRef: 'ticket-4711' };

async function addPasskey(t: TestApi, user: UserRow) {
  const now = new Date(t.clock.now());
  await t.api.deps.db.insert(credentials).values({
    id: randomId().replace(/-/g, ''),
    userId: user.id,
    publicKey: 'pk',
    deviceType: 'singleDevice',
    createdAt: now,
    updatedAt: now,
  });
}

/** An admin (with a TOTP-enrolled session) and a target with 2 live sessions (one rotated), 2 passkeys and TOTP. */
async function setup(adminRoles = ['admin:write']) {
  const t = await makeApi({ env: totpEnv, clockStartMs: STEP_ALIGNED_START_MS });
  const admin = await createUser(t, { roles: adminRoles });
  const adminSession = await signIn(t, admin);
  const adminSecret = await enrollTotp(t, adminSession.token);

  const target = await createUser(t);
  const a = await signIn(t, target);
  const b = await signIn(t, target);
  const rotated = await t.call('POST', '/refresh', { token: b.refreshToken });
  expect(rotated.status).toBe(200);
  await enrollTotp(t, a.token);
  await addPasskey(t, target);
  await addPasskey(t, target);
  t.clock.advance(STEP_MS);
  return {
    t,
    admin,
    adminToken: adminSession.token,
    adminSecret,
    target,
    targetSessions: [a, rotated.body as typeof a],
    rotatedAwayAccess: b.token,
  };
}

async function stepUp(t: TestApi, token: string, secret: string) {
  const res = await t.call('POST', '/totp/verify-mfa', { token, body: { code: codeAt(secret, t.clock.now()) } });
  expect(res.status).toBe(200);
}

async function targetState(t: TestApi, userId: string) {
  const db = t.api.deps.db;
  return {
    unrevokedSessions: (
      await db
        .select()
        .from(sessions)
        .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)))
    ).length,
    passkeys: (await db.select().from(credentials).where(eq(credentials.userId, userId))).length,
    enabledTotp: (
      await db
        .select()
        .from(totpCredentials)
        .where(and(eq(totpCredentials.userId, userId), eq(totpCredentials.enabled, true)))
    ).length,
  };
}

describe('POST /admin/users/:userId/recovery/device-replacement', () => {
  it('without fresh step-up answers 403 step_up_required and leaves the target untouched', async () => {
    const { t, adminToken, target } = await setup();
    const before = await targetState(t, target.id);
    expect(before).toEqual({ unrevokedSessions: 3, passkeys: 2, enabledTotp: 1 });
    const res = await t.call('POST', path(target.id), { token: adminToken, body: { proofing } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: 'step_up_required',
      message: expect.any(String),
      fresh: false,
      method: null,
      verifiedAt: null,
      expiresAt: null,
      maxAgeSeconds: 300,
    });
    expect(await targetState(t, target.id)).toEqual(before);
    // Step-up is checked before the user lookup: an unknown id gets the same 403, not 404.
    expect((await t.call('POST', path(randomId()), { token: adminToken, body: { proofing } })).status).toBe(403);
  });

  it('with a stale step-up (over 300 s) answers 403 step_up_required', async () => {
    const { t, adminToken, adminSecret, target } = await setup();
    await stepUp(t, adminToken, adminSecret);
    t.clock.advance(300_000);
    const res = await t.call('POST', path(target.id), { token: adminToken, body: { proofing } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'step_up_required', method: 'totp' });
  });

  it('without admin:write answers 403 forbidden even with fresh step-up', async () => {
    const { t, adminToken, adminSecret, target } = await setup(['admin:read']);
    await stepUp(t, adminToken, adminSecret);
    const before = await targetState(t, target.id);
    const res = await t.call('POST', path(target.id), { token: adminToken, body: { proofing } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'forbidden', message: 'Insufficient role', required: ['admin:write'] });
    expect(await targetState(t, target.id)).toEqual(before);
  });

  it('with both: answers only the counts, and the target’s tokens, passkeys and TOTP are gone', async () => {
    const { t, admin, adminToken, adminSecret, target, targetSessions, rotatedAwayAccess } = await setup();
    await stepUp(t, adminToken, adminSecret);
    const res = await t.call('POST', path(target.id), {
      token: adminToken,
      body: {
        proofing: { method: 'remote_exception', evidenceRef: 'video-call-2026-01-01', approver: 'security-lead' },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      userId: target.id,
      revokedSessions: 2,
      removedCredentials: 2,
      disabledTotpCredentials: 1,
    });

    expect(await targetState(t, target.id)).toEqual({ unrevokedSessions: 0, passkeys: 0, enabledTotp: 0 });
    for (const s of targetSessions) {
      const refresh = await t.call('POST', '/refresh', { token: s.refreshToken });
      expect(refresh.status).toBe(401);
      expect((await t.call('GET', '/users/me', { token: s.token })).status).toBe(401);
    }
    // Even the access token of a rotated-away session dies.
    expect((await t.call('GET', '/users/me', { token: rotatedAwayAccess })).status).toBe(401);
    const reasons = (await t.api.deps.db.select().from(sessions).where(eq(sessions.userId, target.id))).map(
      (s) => s.revokedReason,
    );
    expect(new Set(reasons)).toEqual(new Set(['admin_device_replacement']));

    const [event] = await t.api.deps.db
      .select()
      .from(authEvents)
      .where(eq(authEvents.type, 'admin_device_replacement_recovery'));
    expect(event).toMatchObject({
      userId: target.id,
      actorUserId: admin.id,
      metadata: {
        proofing: { method: 'remote_exception', evidenceRef: 'video-call-2026-01-01', approver: 'security-lead' },
        revokedSessions: 2,
        removedCredentials: 2,
        disabledTotpCredentials: 1,
      },
    });
    // The admin's own session is untouched.
    expect((await t.call('GET', '/users/me', { token: adminToken })).status).toBe(200);
    // The target signs in again with a first factor alone: no MFA step, no old factor.
    const again = await issueSession(t.api.deps, { user: target, method: 'email_otp', client: testClient() });
    expect(again).toHaveProperty('refreshToken');
  });

  it('skips a step whose flag is false and reports 0 for it', async () => {
    const { t, adminToken, adminSecret, target } = await setup();
    await stepUp(t, adminToken, adminSecret);
    const res = await t.call('POST', path(target.id), {
      token: adminToken,
      body: { proofing, revokeSessions: false, disableTotp: false },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      userId: target.id,
      revokedSessions: 0,
      removedCredentials: 2,
      disabledTotpCredentials: 0,
    });
    expect(await targetState(t, target.id)).toEqual({ unrevokedSessions: 3, passkeys: 0, enabledTotp: 1 });
  });

  it('answers 404 for an unknown user once the gates pass', async () => {
    const { t, adminToken, adminSecret } = await setup();
    await stepUp(t, adminToken, adminSecret);
    const res = await t.call('POST', path(randomId()), { token: adminToken, body: { proofing } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: 'User not found' });
  });

  it('validates the body strictly', async () => {
    const { t, adminToken, adminSecret, target } = await setup();
    await stepUp(t, adminToken, adminSecret);
    const cases: [unknown, (string | number)[]][] = [
      [{}, ['proofing']],
      [{ proofing: { method: 'remote_exception', evidenceRef: 'x' } }, ['proofing', 'approver']],
      [{ proofing: { method: 'by_phone', evidenceRef: 'x' } }, ['proofing', 'method']],
      [{ proofing: { method: 'in_person', evidenceRef: '' } }, ['proofing', 'evidenceRef']],
      [{ proofing: { method: 'in_person', evidenceRef: 'x'.repeat(201) } }, ['proofing', 'evidenceRef']],
      [{ proofing, extra: true }, []],
      [{ proofing: { ...proofing, extra: 1 } }, ['proofing']],
      [{ proofing, revokeSessions: 'yes' }, ['revokeSessions']],
    ];
    for (const [body, issuePath] of cases) {
      const res = await t.call('POST', path(target.id), { token: adminToken, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      expect(res.body.details.issues.map((i: { path: unknown }) => i.path)).toContainEqual(issuePath);
    }
    expect(await targetState(t, target.id)).toEqual({ unrevokedSessions: 3, passkeys: 2, enabledTotp: 1 });
  });

  it('requires an access token', async () => {
    const { t, target } = await setup();
    expect((await t.call('POST', path(target.id), { body: { proofing } })).status).toBe(401);
  });

  it('accepts a passkey step-up too, and the target’s real passkey can no longer sign in', async () => {
    const t = await makeApi({ env: totpEnv });
    const admin = await createUser(t, { roles: ['admin'] });
    const adminToken = (await signIn(t, admin)).token;
    const adminKey = await registerPasskey(t, adminToken);
    expect(adminKey.finish.status).toBe(200);
    const target = await createUser(t);
    const targetKey = await registerPasskey(t, (await signIn(t, target)).token);
    expect(targetKey.finish.status).toBe(200);
    // Before: the target's passkey signs in.
    expect(
      (await assertWith(t, '/webauthn/login', await loginToken(t, target.id), targetKey.authenticator)).finish.status,
    ).toBe(200);

    expect((await assertWith(t, '/step-up/webauthn', adminToken, adminKey.authenticator)).finish.status).toBe(200);
    const res = await t.call('POST', path(target.id), { token: adminToken, body: { proofing } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ removedCredentials: 1, revokedSessions: 2, disabledTotpCredentials: 0 });

    const after = await assertWith(t, '/webauthn/login', await loginToken(t, target.id), targetKey.authenticator);
    expect(after.start.status).toBe(401);
    expect(after.start.body.error).toBe('credentials_not_found');
  });
});
