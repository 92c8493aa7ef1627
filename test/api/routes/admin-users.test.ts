import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, sessions, users } from '../../../src/db/schema.js';
import { signedIn } from '../../helpers/admin.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';

describe('admin user routes', () => {
  it('lists users newest first with paging and a literal substring search on email or phone', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:read']);
    t.clock.advance(1000);
    await createUser(t, { email: 'alice_100%@example.com', phone: '+14155550100' });
    t.clock.advance(1000);
    const bob = await createUser(t, { email: 'bob@example.org' });
    const all = await t.call('GET', '/admin/users?limit=2', { token: admin.token });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.users.map((u: { email: string }) => u.email)).toEqual([
      'bob@example.org',
      'alice_100%@example.com',
    ]);
    expect(all.body.users[0]).toEqual({
      id: bob.id,
      email: 'bob@example.org',
      phone: null,
      roles: ['user'],
      verified: true,
      emailVerified: true,
      phoneVerified: false,
      revoked: false,
      lastLogin: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const page2 = await t.call('GET', '/admin/users?limit=2&offset=2', { token: admin.token });
    expect(page2.body.users.map((u: { id: string }) => u.id)).toEqual([admin.user.id]);
    expect((await t.call('GET', '/admin/users?search=%20ALICE_1%20', { token: admin.token })).body.total).toBe(1);
    expect((await t.call('GET', '/admin/users?search=0%25', { token: admin.token })).body.total).toBe(1);
    expect((await t.call('GET', '/admin/users?search=_', { token: admin.token })).body.total).toBe(1);
    expect((await t.call('GET', '/admin/users?search=5550100', { token: admin.token })).body.users[0].phone).toBe(
      '+14155550100',
    );
    expect((await t.call('GET', '/admin/users?limit=0', { token: admin.token })).status).toBe(400);
    expect((await t.call('GET', '/admin/users?limit=101', { token: admin.token })).status).toBe(400);
  });

  it('creates an unverified user with normalised contact data; roles must be available; duplicates get 409', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:write']);
    const res = await t.call('POST', '/admin/users', {
      token: admin.token,
      body: { email: '  New@Example.COM ', phone: '+1 415 555 0101', roles: ['user', ' user', 'admin:read'] },
    });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({
      email: 'new@example.com',
      phone: '+14155550101',
      roles: ['user', 'admin:read'],
      verified: false,
      emailVerified: false,
    });
    const [ev] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'admin_user_created'));
    expect(ev).toMatchObject({ userId: res.body.user.id, actorUserId: admin.user.id });

    const dup = await t.call('POST', '/admin/users', {
      token: admin.token,
      body: { email: 'new@example.com', roles: ['user'] },
    });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: 'already_exists', message: 'User already exists' });
    const dupPhone = await t.call('POST', '/admin/users', {
      token: admin.token,
      body: { email: 'other@example.com', phone: '+14155550101', roles: ['user'] },
    });
    expect(dupPhone.status).toBe(409);

    const ghost = await t.call('POST', '/admin/users', {
      token: admin.token,
      body: { email: 'x@example.com', roles: ['superuser'] },
    });
    expect(ghost.status).toBe(400);
    expect(ghost.body.error).toBe('role_not_available');
    expect(
      (await t.call('POST', '/admin/users', { token: admin.token, body: { email: 'x@example.com', roles: [] } }))
        .status,
    ).toBe(400);
    expect(
      (await t.call('POST', '/admin/users', { token: admin.token, body: { email: 'not-an-email', roles: ['user'] } }))
        .body.error,
    ).toBe('invalid_request');
    expect(
      (
        await t.call('POST', '/admin/users', {
          token: admin.token,
          body: { email: 'x@example.com', roles: ['user'], verified: true },
        })
      ).body.error,
    ).toBe('invalid_request');
    expect(
      (
        await t.call('POST', '/admin/users', {
          token: admin.token,
          body: { email: 'x@example.com', phone: '4155550102', roles: ['user'] },
        })
      ).body.error,
    ).toBe('invalid_request');
  });

  it('reads one user with sessions, credentials, totp, organizations and recent events', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:read']);
    const target = await signedIn(t, ['user']);
    const res = await t.call('GET', `/admin/users/${target.user.id}`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(target.user.id);
    expect(res.body.sessions).toHaveLength(1);
    expect(res.body.sessions[0]).toMatchObject({
      id: target.sessionId,
      userId: target.user.id,
      organizationId: null,
      current: false,
    });
    expect(res.body.credentials).toEqual([]);
    expect(res.body.totp).toEqual({ enabled: false });
    expect(res.body.organizations).toEqual([]);
    expect(res.body.events.map((e: { type: string }) => e.type)).toContain('session_issued');
    const missing = await t.call('GET', '/admin/users/00000000-0000-4000-8000-000000000000', { token: admin.token });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'not_found', message: 'User not found' });
  });

  it('patches strictly: phone change resets phoneVerified, unknown or empty bodies are refused, conflicts get 409', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin']);
    const target = await createUser(t, { phone: '+14155550103', phoneVerified: true });
    const other = await createUser(t);
    const res = await t.call('PATCH', `/admin/users/${target.id}`, {
      token: admin.token,
      body: { phone: '+14155550104', roles: ['user', 'admin:read'] },
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ phone: '+14155550104', phoneVerified: false, roles: ['user', 'admin:read'] });
    const [ev] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'admin_user_updated'));
    expect(ev?.metadata).toEqual({ changedFields: ['phone', 'phoneVerified', 'roles'] });
    expect(ev?.actorUserId).toBe(admin.user.id);

    expect((await t.call('PATCH', `/admin/users/${target.id}`, { token: admin.token, body: {} })).body.error).toBe(
      'invalid_request',
    );
    expect(
      (await t.call('PATCH', `/admin/users/${target.id}`, { token: admin.token, body: { verified: true } })).body.error,
    ).toBe('invalid_request');
    expect(
      (await t.call('PATCH', `/admin/users/${target.id}`, { token: admin.token, body: { roles: ['root'] } })).body
        .error,
    ).toBe('role_not_available');
    const clash = await t.call('PATCH', `/admin/users/${target.id}`, {
      token: admin.token,
      body: { email: other.email.toUpperCase() },
    });
    expect(clash.status).toBe(409);
    expect((await t.call('PATCH', '/admin/users/nope', { token: admin.token, body: { revoked: true } })).status).toBe(
      404,
    );
    const cleared = await t.call('PATCH', `/admin/users/${target.id}`, { token: admin.token, body: { phone: null } });
    expect(cleared.body.user).toMatchObject({ phone: null, phoneVerified: false });
  });

  it('revoked:true ends every session of the user at once (reason admin_user_revoked) and blocks refresh', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:write']);
    const target = await signedIn(t);
    const second = await signIn(t, target.user);
    const res = await t.call('PATCH', `/admin/users/${target.user.id}`, {
      token: admin.token,
      body: { revoked: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.user.revoked).toBe(true);
    const rows = await t.api.deps.db.select().from(sessions).where(eq(sessions.userId, target.user.id));
    expect(rows.map((r) => r.revokedReason)).toEqual(['admin_user_revoked', 'admin_user_revoked']);
    expect((await t.call('GET', '/users/me', { token: target.token })).status).toBe(401);
    expect((await t.call('POST', '/refresh', { token: second.refreshToken })).status).toBe(401);
  });

  it('deletes a user by path: sessions cascade and the event keeps the id', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:write']);
    const target = await signedIn(t);
    const res = await t.call('DELETE', `/admin/users/${target.user.id}`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Success' });
    expect(await t.api.deps.db.select().from(users).where(eq(users.id, target.user.id))).toEqual([]);
    expect(await t.api.deps.db.select().from(sessions).where(eq(sessions.userId, target.user.id))).toEqual([]);
    const [ev] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'user_deleted'));
    expect(ev).toMatchObject({ actorUserId: admin.user.id, metadata: { deletedUserId: target.user.id, self: false } });
    expect((await t.call('DELETE', `/admin/users/${target.user.id}`, { token: admin.token })).status).toBe(404);
  });

  it('reports a user’s suspicious events and related IPs and agents', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:read']);
    const target = await signedIn(t);
    await t.api.deps.events.record({
      type: 'refresh_token_suspicious',
      userId: target.user.id,
      ipAddress: '198.51.100.9',
      userAgent: 'curl/8',
    });
    await t.api.deps.events.record({
      type: 'login_started',
      userId: target.user.id,
      ipAddress: '198.51.100.10',
      userAgent: 'curl/8',
    });
    const res = await t.call('GET', `/admin/users/${target.user.id}/anomalies`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.suspiciousEvents.map((e: { type: string }) => e.type)).toEqual(['refresh_token_suspicious']);
    expect(res.body.relatedIps).toEqual(['198.51.100.10', '198.51.100.9', '203.0.113.7']);
    expect(res.body.relatedAgents).toEqual(['curl/8', 'vitest']);
  });
});

describe('role gate reads the user row', () => {
  it('a demotion takes effect on the very next request with the same access token', async () => {
    const t = await makeApi();
    const boss = await signedIn(t, ['admin']);
    const deputy = await signedIn(t, ['admin:write']);
    expect((await t.call('GET', '/admin/users', { token: deputy.token })).status).toBe(200);
    const demote = await t.call('PATCH', `/admin/users/${deputy.user.id}`, {
      token: boss.token,
      body: { roles: ['user'] },
    });
    expect(demote.status).toBe(200);
    const after = await t.call('GET', '/admin/users', { token: deputy.token });
    expect(after.status).toBe(403);
    expect(after.body).toEqual({ error: 'forbidden', message: 'Insufficient role', required: ['admin:read'] });
    // The token itself still works for non-admin routes: only the role changed.
    expect((await t.call('GET', '/users/me', { token: deputy.token })).status).toBe(200);
  });
});
