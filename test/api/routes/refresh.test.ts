import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { inlineRefreshTokenHasher } from '../../../src/crypto/refresh-token.js';
import { randomId } from '../../../src/crypto/random.js';
import { authEvents, organizationMemberships, organizations, sessions, users } from '../../../src/db/schema.js';
import { markStepUp } from '../../../src/services/session/step-up.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';

const MIN = 60_000;
const refresh = (t: TestApi, token: string) => t.call('POST', '/refresh', { token });
const eventsOf = (t: TestApi, type: string) => t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, type));
const sessionRow = async (t: TestApi, id: string) =>
  (await t.api.deps.db.select().from(sessions).where(eq(sessions.id, id)))[0]!;

async function setup(env: Record<string, string | undefined> = {}) {
  const t = await makeApi({ env });
  const user = await createUser(t);
  const first = await signIn(t, user);
  return { t, user, first };
}

describe('POST /refresh', () => {
  it('rotates a refresh token into a new pair for a new session id', async () => {
    const { t, user, first } = await setup();
    const res = await refresh(t, first.refreshToken);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      'email',
      'message',
      'organizationId',
      'phone',
      'refreshToken',
      'refreshTtl',
      'roles',
      'sessionId',
      'sub',
      'token',
      'ttl',
    ]);
    expect(res.body).toMatchObject({
      message: 'Success',
      sub: user.id,
      email: user.email,
      roles: ['user'],
      ttl: 900,
      refreshTtl: 86400,
      organizationId: null,
      phone: null,
    });
    expect(res.body.sessionId).not.toBe(first.sessionId);
    expect(res.body.refreshToken).not.toBe(first.refreshToken);
    expect(res.body.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const me = await t.call('GET', '/users/me', { token: res.body.token });
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(user.id);
    const old = await sessionRow(t, first.sessionId);
    const next = await sessionRow(t, res.body.sessionId);
    expect(old.replacedBySessionId).toBe(next.id);
    expect(next.chainId).toBe(first.sessionId);
    expect(next.expiresAt.getTime()).toBe(old.expiresAt.getTime());
    expect(next.refreshTokenHash).not.toContain(res.body.refreshToken);
    expect(JSON.stringify(next)).not.toContain(res.body.refreshToken);
    const [ok] = await eventsOf(t, 'refresh_token_success');
    expect(ok).toMatchObject({ userId: user.id, sessionId: next.id, metadata: { previousSessionId: first.sessionId } });
  });

  it('answers refresh_token_reused to a replayed token and kills the whole chain', async () => {
    const { t, first } = await setup();
    const second = (await refresh(t, first.refreshToken)).body;
    const third = (await refresh(t, second.refreshToken)).body;
    const replay = await refresh(t, first.refreshToken);
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ error: 'refresh_token_reused', message: 'Refresh token reuse detected' });
    // The newest link of the chain is dead: its refresh and its access token fail.
    const after = await refresh(t, third.refreshToken);
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('invalid_refresh_token');
    expect((await t.call('GET', '/users/me', { token: third.token })).status).toBe(401);
    expect((await t.call('GET', '/users/me', { token: first.token })).status).toBe(401);
    const chain = await t.api.deps.db.select().from(sessions).where(eq(sessions.chainId, first.sessionId));
    expect(chain).toHaveLength(3);
    for (const s of chain) {
      expect(s.revokedAt).not.toBeNull();
      expect(s.revokedReason).toBe('refresh_token_reuse');
    }
    const [suspicious] = await eventsOf(t, 'refresh_token_suspicious');
    expect(suspicious?.metadata).toEqual({ reason: 'reuse', revokedSessions: 3 });
  });

  it('answers refresh_token_reused to a replay of the just-rotated token with the shipped defaults (no key)', async () => {
    // The 30 s `refresh_reuse_grace_seconds` used to re-issue any replay within it; now only a keyed retry gets one.
    const { t, first } = await setup({ REFRESH_REUSE_GRACE_SECONDS: undefined });
    const second = (await refresh(t, first.refreshToken)).body;
    t.clock.advance(1_000);
    const replay = await refresh(t, first.refreshToken);
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ error: 'refresh_token_reused', message: 'Refresh token reuse detected' });
    expect((await t.call('GET', '/users/me', { token: second.token })).status).toBe(401);
    expect((await refresh(t, second.refreshToken)).body.error).toBe('invalid_refresh_token');
  });

  it('does not touch other chains of the same user on reuse', async () => {
    const { t, user, first } = await setup();
    const other = await signIn(t, user);
    await refresh(t, first.refreshToken);
    await refresh(t, first.refreshToken);
    expect((await refresh(t, other.refreshToken)).status).toBe(200);
  });

  it('answers invalid_refresh_token for a logged-out session', async () => {
    const { t, first } = await setup();
    expect((await t.call('DELETE', '/logout', { token: first.token })).status).toBe(200);
    const res = await refresh(t, first.refreshToken);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_refresh_token', message: 'Invalid refresh token' });
    const failed = await eventsOf(t, 'refresh_token_failed');
    expect(failed.at(-1)?.metadata).toEqual({ reason: 'revoked' });
  });

  it('answers 401 unauthorized without a bearer and invalid_refresh_token for an unknown token', async () => {
    const { t, first } = await setup();
    expect((await t.call('POST', '/refresh')).body).toEqual({ error: 'unauthorized', message: 'Missing bearer token' });
    for (const token of ['A'.repeat(43), 'short', first.token]) {
      const res = await refresh(t, token);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_refresh_token');
    }
    const failed = await eventsOf(t, 'refresh_token_failed');
    expect(failed.map((e) => e.metadata)).toEqual([
      { reason: 'unknown', looksLikeJwt: false },
      { reason: 'unknown', looksLikeJwt: false },
      { reason: 'unknown', looksLikeJwt: true },
    ]);
    expect(JSON.stringify(failed)).not.toContain(first.token);
  });

  it('checks the bcrypt hash: a row whose hash does not match answers invalid_refresh_token', async () => {
    const { t, first } = await setup();
    await t.api.deps.db
      .update(sessions)
      .set({ refreshTokenHash: await inlineRefreshTokenHasher.hash('B'.repeat(43), 4) })
      .where(eq(sessions.id, first.sessionId));
    const res = await refresh(t, first.refreshToken);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_refresh_token');
    const [ev] = await eventsOf(t, 'refresh_token_suspicious');
    expect(ev?.metadata).toEqual({ reason: 'hash_mismatch' });
    expect((await sessionRow(t, first.sessionId)).replacedBySessionId).toBeNull();
  });

  it('revokes the chain when the owner is revoked', async () => {
    const { t, user, first } = await setup();
    await t.api.deps.db.update(users).set({ revoked: true }).where(eq(users.id, user.id));
    expect((await refresh(t, first.refreshToken)).body.error).toBe('invalid_refresh_token');
    expect((await sessionRow(t, first.sessionId)).revokedReason).toBe('user_not_found');
  });

  it('expires an idle session, and each rotation pushes the idle deadline', async () => {
    const { t, first } = await setup({ SESSION_IDLE_TTL: '10m', SESSION_ABSOLUTE_TTL: '1h' });
    expect(first.refreshTtl).toBe(3600);
    t.clock.advance(9 * MIN);
    const a = await refresh(t, first.refreshToken);
    expect(a.status).toBe(200);
    t.clock.advance(9 * MIN); // 18 min after sign-in: alive only because the rotation extended idle
    const b = await refresh(t, a.body.refreshToken);
    expect(b.status).toBe(200);
    t.clock.advance(10 * MIN);
    const c = await refresh(t, b.body.refreshToken);
    expect(c.status).toBe(401);
    expect(c.body.error).toBe('invalid_refresh_token');
    expect((await eventsOf(t, 'refresh_token_failed')).at(-1)?.metadata).toEqual({ reason: 'idle_expired' });
    expect((await t.call('GET', '/users/me', { token: b.body.token })).status).toBe(401);
  });

  it('expires at the absolute lifetime inherited from sign-in; refreshTtl counts down to it', async () => {
    const { t, first } = await setup({ SESSION_IDLE_TTL: '10m', SESSION_ABSOLUTE_TTL: '1h' });
    let token = first.refreshToken;
    const signInMs = t.clock.now();
    for (let elapsed = 9; elapsed <= 54; elapsed += 9) {
      t.clock.advance(9 * MIN);
      const res = await refresh(t, token);
      expect(res.status).toBe(200);
      expect(res.body.refreshTtl).toBe(3600 - elapsed * 60);
      const row = await sessionRow(t, res.body.sessionId);
      expect(row.expiresAt.getTime()).toBe(signInMs + 3600_000);
      expect(row.idleExpiresAt.getTime()).toBe(Math.min(t.clock.now() + 10 * MIN, signInMs + 3600_000));
      token = res.body.refreshToken;
    }
    t.clock.advance(6 * MIN); // exactly 60 min
    const dead = await refresh(t, token);
    expect(dead.status).toBe(401);
    expect((await eventsOf(t, 'refresh_token_failed')).at(-1)?.metadata).toEqual({ reason: 'expired' });
  });

  it('answers refreshTtl = min(refresh_token_ttl, expires_at - now)', async () => {
    const { t, first } = await setup({ REFRESH_TOKEN_TTL: '2h', SESSION_ABSOLUTE_TTL: '3h' });
    expect(first.refreshTtl).toBe(7200);
    t.clock.advance(90 * MIN);
    const res = await refresh(t, first.refreshToken);
    expect(res.body.refreshTtl).toBe(5400);
  });

  it('copies step-up freshness to the successor', async () => {
    const { t, first } = await setup();
    await markStepUp(t.api.deps.db, first.sessionId, 'totp', t.clock.now());
    t.clock.advance(1000);
    const res = await refresh(t, first.refreshToken);
    const next = await sessionRow(t, res.body.sessionId);
    const old = await sessionRow(t, first.sessionId);
    expect(next.stepUpVerifiedAt?.getTime()).toBe(old.stepUpVerifiedAt?.getTime());
    expect(next.stepUpMethod).toBe('totp');
  });

  it('keeps the organization, or drops it when the membership is gone', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const now = new Date(t.clock.now());
    const orgId = randomId();
    await t.api.deps.db
      .insert(organizations)
      .values({ id: orgId, name: 'Acme', slug: `acme-${orgId.slice(0, 8)}`, createdAt: now, updatedAt: now });
    await t.api.deps.db
      .insert(organizationMemberships)
      .values({ id: randomId(), organizationId: orgId, userId: user.id, createdAt: now, updatedAt: now });
    const first = await signIn(t, user);
    const kept = await refresh(t, first.refreshToken);
    expect(kept.body.organizationId).toBe(orgId);
    await t.api.deps.db
      .delete(organizationMemberships)
      .where(and(eq(organizationMemberships.userId, user.id), eq(organizationMemberships.organizationId, orgId)));
    const dropped = await refresh(t, kept.body.refreshToken);
    expect(dropped.status).toBe(200);
    expect(dropped.body.organizationId).toBeNull();
  });
});
