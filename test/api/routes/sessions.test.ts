import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, sessions } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';

const me = (t: TestApi, token: string) => t.call('GET', '/users/me', { token });
const refresh = (t: TestApi, token: string) => t.call('POST', '/refresh', { token });
const eventsOf = (t: TestApi, type: string) => t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, type));
const row = async (t: TestApi, id: string) =>
  (await t.api.deps.db.select().from(sessions).where(eq(sessions.id, id)))[0]!;

async function setup(n = 1) {
  const t = await makeApi();
  const user = await createUser(t);
  const list = [];
  for (let i = 0; i < n; i++) {
    list.push(await signIn(t, user));
    t.clock.advance(1000);
  }
  return { t, user, s: list };
}

describe('DELETE /logout', () => {
  it('revokes the current session only', async () => {
    const { t, user, s } = await setup(2);
    const res = await t.call('DELETE', '/logout', { token: s[0]!.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Success' });
    expect(res.headers.get('deprecation')).toBeNull();
    expect((await me(t, s[0]!.token)).status).toBe(401);
    expect((await me(t, s[1]!.token)).status).toBe(200);
    expect((await row(t, s[0]!.sessionId)).revokedReason).toBe('user_logout');
    const [ev] = await eventsOf(t, 'logout_success');
    expect(ev).toMatchObject({ userId: user.id, sessionId: s[0]!.sessionId, metadata: { scope: 'current_session' } });
  });

  it('is idempotent: a token of an already revoked or deleted session still gets 200', async () => {
    const { t, s } = await setup(1);
    expect((await t.call('DELETE', '/logout', { token: s[0]!.token })).status).toBe(200);
    const again = await t.call('DELETE', '/logout', { token: s[0]!.token });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ message: 'Success' });
    await t.api.deps.db.delete(sessions).where(eq(sessions.id, s[0]!.sessionId));
    expect((await t.call('DELETE', '/logout', { token: s[0]!.token })).status).toBe(200);
    expect(await eventsOf(t, 'logout_success')).toHaveLength(1);
  });

  it('still refuses a missing, forged or expired token', async () => {
    const { t, s } = await setup(1);
    expect((await t.call('DELETE', '/logout')).status).toBe(401);
    expect((await t.call('DELETE', '/logout', { token: `${s[0]!.token.slice(0, -4)}AAAA` })).status).toBe(401);
    t.clock.advance(2 * 3600_000);
    expect((await t.call('DELETE', '/logout', { token: s[0]!.token })).body.error).toBe('unauthorized');
  });
});

describe('DELETE /logout/all and GET /logout', () => {
  it('revokes every active session of the user and reports the count', async () => {
    const { t, user, s } = await setup(3);
    const other = await createUser(t);
    const otherSession = await signIn(t, other);
    const res = await t.call('DELETE', '/logout/all', { token: s[1]!.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Success', revokedSessions: 3 });
    for (const x of s) {
      expect((await me(t, x.token)).status).toBe(401);
      expect((await row(t, x.sessionId)).revokedReason).toBe('user_logout_all');
    }
    expect((await me(t, otherSession.token)).status).toBe(200);
    const [ev] = await eventsOf(t, 'logout_success');
    expect(ev).toMatchObject({ userId: user.id, metadata: { scope: 'all_sessions', revokedSessions: 3 } });
    const again = await t.call('DELETE', '/logout/all', { token: s[1]!.token });
    expect(again.body).toEqual({ message: 'Success', revokedSessions: 0 });
  });

  it('GET /logout is the deprecated alias of DELETE /logout/all', async () => {
    const { t, s } = await setup(2);
    const res = await t.call('GET', '/logout', { token: s[0]!.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('deprecation')).toBe('true');
    expect(res.body).toEqual({ message: 'Success', revokedSessions: 2 });
    expect((await me(t, s[1]!.token)).status).toBe(401);
    expect((await t.call('GET', '/logout')).status).toBe(401);
  });
});

describe('GET /sessions', () => {
  it('lists only active sessions, flags the current one and hides replaced, revoked and expired ones', async () => {
    const { t, user, s } = await setup(3);
    const rotated = (await refresh(t, s[0]!.refreshToken)).body;
    await t.call('DELETE', '/logout', { token: s[1]!.token });
    const res = await t.call('GET', '/sessions', { token: s[2]!.token });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    const ids = res.body.sessions.map((x: { id: string }) => x.id);
    expect(ids.sort()).toEqual([rotated.sessionId, s[2]!.sessionId].sort());
    const current = res.body.sessions.find((x: { current: boolean }) => x.current);
    expect(current.id).toBe(s[2]!.sessionId);
    expect(Object.keys(current).sort()).toEqual([
      'authMethod',
      'createdAt',
      'current',
      'deviceName',
      'expiresAt',
      'id',
      'idleExpiresAt',
      'ipAddress',
      'lastUsedAt',
      'place',
      'signedInAt',
      'userAgent',
    ]);
    expect(current).toMatchObject({ ipAddress: '203.0.113.7', userAgent: 'vitest', deviceName: null });
    expect(current.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const other = await createUser(t);
    await signIn(t, other);
    expect((await t.call('GET', '/sessions', { token: s[2]!.token })).body.total).toBe(2);
    void user;
  });

  it('requires an access token', async () => {
    const { t, s } = await setup(1);
    expect((await t.call('GET', '/sessions')).status).toBe(401);
    expect((await t.call('GET', '/sessions', { token: s[0]!.refreshToken })).status).toBe(401);
  });
});

describe('DELETE /sessions/:id', () => {
  it('revokes one of the user’s own sessions', async () => {
    const { t, user, s } = await setup(2);
    const res = await t.call('DELETE', `/sessions/${s[1]!.sessionId}`, { token: s[0]!.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Success' });
    expect((await row(t, s[1]!.sessionId)).revokedReason).toBe('user_revoked');
    expect((await refresh(t, s[1]!.refreshToken)).body.error).toBe('invalid_refresh_token');
    expect((await me(t, s[0]!.token)).status).toBe(200);
    const [ev] = await eventsOf(t, 'session_revoked');
    expect(ev).toMatchObject({
      userId: user.id,
      sessionId: s[0]!.sessionId,
      metadata: { revokedSessionId: s[1]!.sessionId },
    });
  });

  it('answers 404 for another user’s session and leaves it alone', async () => {
    const { t, s } = await setup(1);
    const other = await createUser(t);
    const theirs = await signIn(t, other);
    const res = await t.call('DELETE', `/sessions/${theirs.sessionId}`, { token: s[0]!.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: 'Session not found' });
    expect((await me(t, theirs.token)).status).toBe(200);
    const missing = await t.call('DELETE', '/sessions/00000000-0000-4000-8000-000000000000', { token: s[0]!.token });
    expect(missing.body).toEqual({ error: 'not_found', message: 'Session not found' });
  });
});

describe('DELETE /sessions', () => {
  it('revokes every other active session and keeps the current one', async () => {
    const { t, s } = await setup(3);
    const res = await t.call('DELETE', '/sessions', { token: s[0]!.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Success', revokedSessions: 2 });
    expect((await me(t, s[0]!.token)).status).toBe(200);
    expect((await me(t, s[1]!.token)).status).toBe(401);
    expect((await me(t, s[2]!.token)).status).toBe(401);
    expect((await refresh(t, s[0]!.refreshToken)).status).toBe(200);
  });
});

describe('revocation reaches rotated-away sessions (their access tokens outlive the rotation, contract §0.3)', () => {
  it('DELETE /logout with the access token of a rotated-away session ends its successor', async () => {
    const { t, s } = await setup(1);
    const next = (await refresh(t, s[0]!.refreshToken)).body;
    expect((await t.call('DELETE', '/logout', { token: s[0]!.token })).status).toBe(200);
    expect((await me(t, next.token)).status).toBe(401);
    expect((await refresh(t, next.refreshToken)).body.error).toBe('invalid_refresh_token');
  });

  it('DELETE /logout/all also kills the access token of a rotated-away session and counts active sessions only', async () => {
    const { t, s } = await setup(2);
    const next = (await refresh(t, s[0]!.refreshToken)).body;
    expect((await me(t, s[0]!.token)).status).toBe(200);
    const res = await t.call('DELETE', '/logout/all', { token: s[1]!.token });
    expect(res.body).toEqual({ message: 'Success', revokedSessions: 2 });
    for (const token of [s[0]!.token, next.token, s[1]!.token]) expect((await me(t, token)).status).toBe(401);
  });

  it('DELETE /sessions ends other chains, rotated-away rows included, and keeps the current chain', async () => {
    const { t, s } = await setup(2);
    const other = (await refresh(t, s[1]!.refreshToken)).body;
    const mine = (await refresh(t, s[0]!.refreshToken)).body;
    const res = await t.call('DELETE', '/sessions', { token: mine.token });
    expect(res.body).toEqual({ message: 'Success', revokedSessions: 1 });
    expect((await me(t, s[1]!.token)).status).toBe(401);
    expect((await me(t, other.token)).status).toBe(401);
    expect((await me(t, mine.token)).status).toBe(200);
    expect((await me(t, s[0]!.token)).status).toBe(200);
  });

  it('DELETE /sessions/:id ends the target’s whole chain', async () => {
    const { t, s } = await setup(2);
    const res = await t.call('DELETE', `/sessions/${s[1]!.sessionId}`, { token: s[0]!.token });
    expect(res.status).toBe(200);
    expect((await me(t, s[1]!.token)).status).toBe(401);
    expect((await me(t, s[0]!.token)).status).toBe(200);
  });
});
