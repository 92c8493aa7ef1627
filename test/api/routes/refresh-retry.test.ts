/**
 * Retry-safe rotation (keyed, contract §3.8): a refresh token
 * presented again with the same `Idempotency-Key` as the refresh that rotated
 * it, within `refresh_reuse_grace_seconds` of that rotation, while its
 * successor was never presented, is a lost answer: it gets a fresh rotation
 * and the unused successor is retired. Without the key, outside the window, or
 * once the successor was used, reuse still revokes the whole chain; 0 turns
 * retries off. The key rules themselves: refresh-idempotency.test.ts.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, sessions } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';

// The default window (30 s).
const graceEnv = { REFRESH_REUSE_GRACE_SECONDS: undefined, DISABLE_AUTH_RATE_LIMITS: 'true' };
let keys = 0;
/** One refresh attempt: a fresh key unless `key` repeats an earlier attempt's. */
const refresh = (t: TestApi, token: string, key = `attempt-${++keys}-0123456789`) =>
  t.call('POST', '/refresh', { token, headers: { 'idempotency-key': key } });
const KEY = 'lost-answer-0123456789';
const row = async (t: TestApi, id: string) =>
  (await t.api.deps.db.select().from(sessions).where(eq(sessions.id, id)))[0]!;
const liveHeads = (t: TestApi, chainId: string) =>
  t.api.deps.db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.chainId, chainId), isNull(sessions.revokedAt), isNull(sessions.replacedBySessionId)));

async function setup(env: Record<string, string | undefined> = graceEnv) {
  const t = await makeApi({ env });
  const user = await createUser(t);
  const first = await signIn(t, user);
  return { t, user, first };
}

describe('retry-safe refresh rotation', () => {
  it('defaults the window to 30 s (system config refresh_reuse_grace_seconds)', async () => {
    const { t } = await setup();
    expect((await t.api.deps.config.get()).refresh_reuse_grace_seconds).toBe(30);
  });

  it('answers a retry of a just-rotated token with a fresh rotation and retires the unused successor', async () => {
    const { t, user, first } = await setup();
    const lost = (await refresh(t, first.refreshToken, KEY)).body; // the answer the client never saw
    t.clock.advance(20_000);
    const retry = await refresh(t, first.refreshToken, KEY);
    expect(retry.status).toBe(200);
    expect(retry.body.sessionId).not.toBe(lost.sessionId);
    expect(retry.body.refreshToken).not.toBe(lost.refreshToken);
    // The new pair works; the lost successor is dead and its access token refused.
    expect((await t.call('GET', '/users/me', { token: retry.body.token })).status).toBe(200);
    expect((await t.call('GET', '/users/me', { token: lost.token })).status).toBe(401);
    expect(await row(t, lost.sessionId)).toMatchObject({
      revokedReason: 'refresh_retry_superseded',
      replacedBySessionId: retry.body.sessionId,
    });
    expect((await row(t, first.sessionId)).replacedBySessionId).toBe(retry.body.sessionId);
    expect(await liveHeads(t, first.sessionId)).toEqual([{ id: retry.body.sessionId }]);
    const next = await refresh(t, retry.body.refreshToken);
    expect(next.status).toBe(200);
    const [event] = (
      await t.api.deps.db.select().from(authEvents).where(eq(authEvents.sessionId, retry.body.sessionId))
    ).filter((e) => e.type === 'refresh_token_success');
    expect(event).toMatchObject({
      userId: user.id,
      metadata: {
        reason: 'idempotent_retry',
        previousSessionId: first.sessionId,
        retry: true,
        supersededSessionId: lost.sessionId,
      },
    });
  });

  it('revokes the whole chain when the lost successor turns up after the retry', async () => {
    const { t, first } = await setup();
    const lost = (await refresh(t, first.refreshToken, KEY)).body;
    const retry = (await refresh(t, first.refreshToken, KEY)).body;
    expect(retry.sessionId).toBeDefined();
    const replay = await refresh(t, lost.refreshToken);
    expect(replay.status).toBe(401);
    expect(replay.body.error).toBe('refresh_token_reused');
    expect((await t.call('GET', '/users/me', { token: retry.token })).status).toBe(401);
    expect(await liveHeads(t, first.sessionId)).toEqual([]);
  });

  it('treats the old token as theft once its successor was used for a refresh, even with the same key', async () => {
    const { t, first } = await setup();
    const second = (await refresh(t, first.refreshToken, KEY)).body;
    const third = (await refresh(t, second.refreshToken)).body;
    const replay = await refresh(t, first.refreshToken, KEY);
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ error: 'refresh_token_reused', message: 'Refresh token reuse detected' });
    expect((await t.call('GET', '/users/me', { token: third.token })).status).toBe(401);
    expect(await liveHeads(t, first.sessionId)).toEqual([]);
  });

  it('treats the old token as theft outside the window, even with the same key', async () => {
    const { t, first } = await setup();
    const second = (await refresh(t, first.refreshToken, KEY)).body;
    t.clock.advance(30_001);
    const replay = await refresh(t, first.refreshToken, KEY);
    expect(replay.status).toBe(401);
    expect(replay.body.error).toBe('refresh_token_reused');
    expect((await t.call('GET', '/users/me', { token: second.token })).status).toBe(401);
  });

  it('is strict without the key (contract §3.8 as written)', async () => {
    const { t, first } = await setup();
    await refresh(t, first.refreshToken, KEY);
    const replay = await refresh(t, first.refreshToken);
    expect(replay.status).toBe(401);
    expect(replay.body.error).toBe('refresh_token_reused');
    expect(await liveHeads(t, first.sessionId)).toEqual([]);
  });

  it('is strict with a window of 0, even with the same key', async () => {
    const { t, first } = await setup({ ...graceEnv, REFRESH_REUSE_GRACE_SECONDS: '0' });
    await refresh(t, first.refreshToken, KEY);
    const replay = await refresh(t, first.refreshToken, KEY);
    expect(replay.status).toBe(401);
    expect(replay.body.error).toBe('refresh_token_reused');
    expect(await liveHeads(t, first.sessionId)).toEqual([]);
  });

  it('refuses a retry with a revoked presented session (logout) even inside the window', async () => {
    const { t, first } = await setup();
    const second = (await refresh(t, first.refreshToken, KEY)).body;
    expect((await t.call('DELETE', '/logout', { token: second.token })).status).toBe(200);
    const replay = await refresh(t, first.refreshToken, KEY);
    expect(replay.status).toBe(401);
    expect(await liveHeads(t, first.sessionId)).toEqual([]);
  });
});

// Concurrent keyed retries across two instances: refresh-idempotency.test.ts ("keyed retries across two instances").
