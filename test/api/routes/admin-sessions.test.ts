import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, credentials, sessions } from '../../../src/db/schema.js';
import { signedIn } from '../../helpers/admin.js';
import { signIn } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';

describe('admin session routes', () => {
  it('lists active sessions newest first, 10 by default, with user and organization ids', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:read']);
    t.clock.advance(1000);
    const target = await signedIn(t);
    for (let i = 0; i < 10; i++) {
      t.clock.advance(1000);
      await signIn(t, target.user);
    }
    const res = await t.call('GET', '/admin/sessions', { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(12);
    expect(res.body.sessions).toHaveLength(10);
    expect(res.body.sessions[0]).toMatchObject({ userId: target.user.id, organizationId: null, current: false });
    const last = await t.call('GET', '/admin/sessions?offset=10', { token: admin.token });
    expect(last.body.sessions.map((s: { id: string }) => s.id)).toEqual([target.sessionId, admin.sessionId]);
    expect(last.body.sessions[1].current).toBe(true);

    const mine = await t.call('GET', `/admin/sessions/${target.user.id}`, { token: admin.token });
    expect(mine.body.total).toBe(11);
    expect(mine.body.sessions.every((s: { userId: string }) => s.userId === target.user.id)).toBe(true);
  });

  it('revoking one session by id makes its refresh fail with 401 and its access token stop working', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:write']);
    const target = await signedIn(t);
    const other = await signIn(t, target.user);
    const res = await t.call('DELETE', `/admin/sessions/by-id/${target.sessionId}`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Success' });
    const refresh = await t.call('POST', '/refresh', { token: target.refreshToken });
    expect(refresh.status).toBe(401);
    expect(refresh.body.error).toBe('invalid_refresh_token');
    expect((await t.call('GET', '/users/me', { token: target.token })).status).toBe(401);
    // The user's other session is untouched.
    expect((await t.call('GET', '/users/me', { token: other.token })).status).toBe(200);
    const [row] = await t.api.deps.db.select().from(sessions).where(eq(sessions.id, target.sessionId));
    expect(row?.revokedReason).toBe('admin_revoke');
    const [ev] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'admin_session_revoked'));
    expect(ev).toMatchObject({
      userId: target.user.id,
      actorUserId: admin.user.id,
      metadata: { scope: 'one', revokedSessionId: target.sessionId },
    });
    expect((await t.call('DELETE', '/admin/sessions/by-id/unknown', { token: admin.token })).body).toEqual({
      error: 'not_found',
      message: 'Session not found',
    });
  });

  it('revoking by id also ends the successor when the user refreshed in between', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:write']);
    const target = await signedIn(t);
    const rotated = await t.call('POST', '/refresh', { token: target.refreshToken });
    expect(rotated.status).toBe(200);
    await t.call('DELETE', `/admin/sessions/by-id/${target.sessionId}`, { token: admin.token });
    expect((await t.call('POST', '/refresh', { token: rotated.body.refreshToken })).status).toBe(401);
    expect((await t.call('GET', '/users/me', { token: rotated.body.token })).status).toBe(401);
  });

  it('revoke-all ends every session of the user, counts the active ones, and refresh then fails with 401', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:write']);
    const target = await signedIn(t);
    const rotated = await t.call('POST', '/refresh', { token: target.refreshToken });
    const second = await signIn(t, target.user);
    const res = await t.call('DELETE', `/admin/sessions/${target.user.id}/revoke-all`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Success', revokedSessions: 2 });
    for (const token of [rotated.body.refreshToken, second.refreshToken])
      expect((await t.call('POST', '/refresh', { token })).status).toBe(401);
    // Even the rotated-away session's access token is dead now.
    expect((await t.call('GET', '/users/me', { token: target.token })).status).toBe(401);
    expect((await t.call('GET', '/users/me', { token: admin.token })).status).toBe(200);
    const rows = await t.api.deps.db.select().from(sessions).where(eq(sessions.userId, target.user.id));
    expect(new Set(rows.map((r) => r.revokedReason))).toEqual(new Set(['admin_revoke_all']));
  });
});

describe('GET /admin/credential-count', () => {
  it('counts every passkey', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin:read']);
    const other = await signedIn(t);
    const now = new Date(t.clock.now());
    const passkey = (id: string, userId: string) => ({
      id,
      userId,
      publicKey: 'pk',
      deviceType: 'multiDevice',
      createdAt: now,
      updatedAt: now,
    });
    await t.api.deps.db
      .insert(credentials)
      .values([passkey('cred-a', admin.user.id), passkey('cred-b', other.user.id), passkey('cred-c', other.user.id)]);
    const res = await t.call('GET', '/admin/credential-count', { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ count: 3 });
  });
});
