import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, credentials, organizationMemberships, sessions, users } from '../../../src/db/schema.js';
import { markStepUp } from '../../../src/services/session/step-up.js';
import { signedIn } from '../../helpers/admin.js';
import { signIn } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';

async function addPasskey(t: TestApi, userId: string, id = `cred-${userId.slice(0, 8)}`) {
  const now = new Date(t.clock.now());
  await t.api.deps.db.insert(credentials).values({
    id,
    userId,
    publicKey: 'pk',
    deviceType: 'multiDevice',
    transports: ['internal'],
    friendlyName: 'Laptop',
    createdAt: now,
    updatedAt: now,
  });
}

describe('GET /users/me', () => {
  it('returns the Me shape, credentials without keys, organizations with membership and the active organization', async () => {
    const t = await makeApi();
    const alice = await signedIn(t, ['user'], { phone: '+14155550109', phoneVerified: true });
    await addPasskey(t, alice.user.id);
    const org = (await t.call('POST', '/organizations', { token: alice.token, body: { name: 'Mine' } })).body
      .organization;
    const switched = await t.call('POST', `/organizations/${org.id}/switch`, { token: alice.token });
    const res = await t.call('GET', '/users/me', { token: switched.body.token });
    expect(res.status).toBe(200);
    expect(res.body.user).toEqual({
      id: alice.user.id,
      email: alice.user.email,
      phone: '+14155550109',
      roles: ['user'],
      emailVerified: true,
      phoneVerified: true,
      lastLogin: new Date(t.clock.now()).toISOString(),
      createdAt: expect.any(String),
      activeOrganizationId: org.id,
    });
    expect(res.body.credentials).toEqual([
      {
        id: `cred-${alice.user.id.slice(0, 8)}`,
        friendlyName: 'Laptop',
        deviceType: 'multiDevice',
        backedUp: false,
        transports: ['internal'],
        prfCapable: false,
        platform: null,
        browser: null,
        deviceInfo: null,
        counter: 0,
        lastUsedAt: null,
        createdAt: expect.any(String),
      },
    ]);
    expect(res.body.organizations).toHaveLength(1);
    expect(res.body.organizations[0]).toMatchObject({ id: org.id, membership: { roles: ['owner', 'admin'] } });
    expect(res.body.activeOrganization).toMatchObject({ id: org.id, name: 'Mine' });
    expect((await t.call('GET', '/users/me')).status).toBe(401);
  });
});

describe('DELETE /users/delete', () => {
  it('deletes a user without a second factor at once; sessions, memberships and credentials cascade', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    const other = await signIn(t, alice.user);
    await t.call('POST', '/organizations', { token: alice.token, body: { name: 'Solo' } });
    const res = await t.call('DELETE', '/users/delete', { token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Success' });
    expect(await t.api.deps.db.select().from(users).where(eq(users.id, alice.user.id))).toEqual([]);
    expect(await t.api.deps.db.select().from(sessions).where(eq(sessions.userId, alice.user.id))).toEqual([]);
    expect(
      await t.api.deps.db
        .select()
        .from(organizationMemberships)
        .where(eq(organizationMemberships.userId, alice.user.id)),
    ).toEqual([]);
    expect((await t.call('GET', '/users/me', { token: other.token })).status).toBe(401);
    expect((await t.call('POST', '/refresh', { token: other.refreshToken })).status).toBe(401);
    const [ev] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'user_deleted'));
    expect(ev).toMatchObject({
      userId: null,
      actorUserId: alice.user.id,
      metadata: { deletedUserId: alice.user.id, self: true },
    });
  });

  it('requires a fresh step-up from a user with a passkey, and accepts one', async () => {
    const t = await makeApi();
    const alice = await signedIn(t);
    await addPasskey(t, alice.user.id);
    const refused = await t.call('DELETE', '/users/delete', { token: alice.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'step_up_required', fresh: false, maxAgeSeconds: 300 });
    expect(await t.api.deps.db.select().from(users).where(eq(users.id, alice.user.id))).toHaveLength(1);

    await markStepUp(t.api.deps.db, alice.sessionId, 'webauthn', t.clock.now());
    t.clock.advance(301_000);
    expect((await t.call('DELETE', '/users/delete', { token: alice.token })).status).toBe(403);
    await markStepUp(t.api.deps.db, alice.sessionId, 'webauthn', t.clock.now());
    const ok = await t.call('DELETE', '/users/delete', { token: alice.token });
    expect(ok.status).toBe(200);
    expect(await t.api.deps.db.select().from(credentials).where(eq(credentials.userId, alice.user.id))).toEqual([]);
  });
});
