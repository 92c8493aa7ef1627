/**
 * Keyed refresh retries (contract §3.8 as amended in
 * docs/contract-changes.md): with the shipped defaults a replayed refresh token
 * is reuse — 401 `refresh_token_reused`, the whole chain revoked — unless the
 * replay carries the same `Idempotency-Key` as the refresh that rotated it,
 * within `refresh_reuse_grace_seconds` of that rotation, while the successor
 * is unused. Only then does it get the retry answer.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/crypto/hash.js';
import { authEvents, sessions } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, prepareClient, type TestApi } from '../../helpers/make-app.js';
import { tempDbFile, type TempDb } from '../../helpers/temp-db.js';

// The shipped defaults: no REFRESH_REUSE_GRACE_SECONDS override at all.
const defaults = { REFRESH_REUSE_GRACE_SECONDS: undefined, DISABLE_AUTH_RATE_LIMITS: 'true' };
const KEY = 'key-A_0123456789abcdef';
const OTHER = 'key-B_0123456789abcdef';
const refresh = (t: TestApi, token: string, key?: string) =>
  t.call('POST', '/refresh', { token, headers: key === undefined ? {} : { 'idempotency-key': key } });
const row = async (t: TestApi, id: string) =>
  (await t.api.deps.db.select().from(sessions).where(eq(sessions.id, id)))[0]!;
const chainRows = (t: TestApi, chainId: string) =>
  t.api.deps.db.select().from(sessions).where(eq(sessions.chainId, chainId));
const liveHeads = (t: TestApi, chainId: string) =>
  t.api.deps.db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.chainId, chainId), isNull(sessions.revokedAt), isNull(sessions.replacedBySessionId)));
const eventsOf = (t: TestApi, type: string) => t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, type));

async function setup(env: Record<string, string | undefined> = defaults) {
  const t = await makeApi({ env });
  const user = await createUser(t);
  const first = await signIn(t, user);
  return { t, user, first };
}

/** The replay was refused as reuse: 401, the whole chain (successor included) revoked, a suspicious event. */
async function expectReuse(
  t: TestApi,
  replay: { status: number; body: any },
  chainId: string,
  successor: { token: string; refreshToken: string },
) {
  expect(replay.status).toBe(401);
  expect(replay.body).toEqual({ error: 'refresh_token_reused', message: 'Refresh token reuse detected' });
  expect(await liveHeads(t, chainId)).toEqual([]);
  for (const s of await chainRows(t, chainId)) expect(s.revokedAt).not.toBeNull();
  expect((await t.call('GET', '/users/me', { token: successor.token })).status).toBe(401);
  expect((await refresh(t, successor.refreshToken, KEY)).status).toBe(401);
  const [suspicious] = await eventsOf(t, 'refresh_token_suspicious');
  expect(suspicious?.metadata).toMatchObject({ reason: 'reuse' });
}

describe('refresh replay with the default configuration (strict unless keyed)', () => {
  it('keeps the key name and its 30 s default: it now bounds keyed retries only', async () => {
    const { t } = await setup();
    expect((await t.api.deps.config.get()).refresh_reuse_grace_seconds).toBe(30);
  });

  it('answers a replay without a key with refresh_token_reused and revokes the chain, successor included', async () => {
    const { t, first } = await setup();
    const second = (await refresh(t, first.refreshToken)).body;
    t.clock.advance(1_000);
    await expectReuse(t, await refresh(t, first.refreshToken), first.sessionId, second);
  });

  it('answers a keyless replay of a keyed rotation with refresh_token_reused', async () => {
    const { t, first } = await setup();
    const second = (await refresh(t, first.refreshToken, KEY)).body;
    await expectReuse(t, await refresh(t, first.refreshToken), first.sessionId, second);
  });

  it('answers a replay with another key with refresh_token_reused', async () => {
    const { t, first } = await setup();
    const second = (await refresh(t, first.refreshToken, KEY)).body;
    await expectReuse(t, await refresh(t, first.refreshToken, OTHER), first.sessionId, second);
  });

  it('answers a keyed replay of a rotation that carried no key with refresh_token_reused', async () => {
    const { t, first } = await setup();
    const second = (await refresh(t, first.refreshToken)).body;
    await expectReuse(t, await refresh(t, first.refreshToken, KEY), first.sessionId, second);
  });

  it('gives the retry answer to the same key within the window while the successor is unused', async () => {
    const { t, user, first } = await setup();
    const lost = (await refresh(t, first.refreshToken, KEY)).body; // the answer the client never saw
    // Stored as its SHA-256 only, on the rotated row.
    const rotated = await row(t, first.sessionId);
    expect(rotated.refreshIdempotencyKeyHash).toBe(sha256Hex(KEY));
    expect(JSON.stringify(await chainRows(t, first.sessionId))).not.toContain(KEY);
    t.clock.advance(29_000);
    const retry = await refresh(t, first.refreshToken, KEY);
    expect(retry.status).toBe(200);
    expect(retry.body.sessionId).not.toBe(lost.sessionId);
    expect(retry.body.refreshToken).not.toBe(lost.refreshToken);
    expect((await t.call('GET', '/users/me', { token: retry.body.token })).status).toBe(200);
    // The original successor no longer works.
    expect((await t.call('GET', '/users/me', { token: lost.token })).status).toBe(401);
    expect(await row(t, lost.sessionId)).toMatchObject({ revokedReason: 'refresh_retry_superseded' });
    expect(await liveHeads(t, first.sessionId)).toEqual([{ id: retry.body.sessionId }]);
    const [event] = (await eventsOf(t, 'refresh_token_success')).filter((e) => e.sessionId === retry.body.sessionId);
    expect(event).toMatchObject({
      userId: user.id,
      metadata: {
        reason: 'idempotent_retry',
        previousSessionId: first.sessionId,
        retry: true,
        supersededSessionId: lost.sessionId,
      },
    });
    // The fresh pair goes on rotating; the lost successor turning up later is reuse.
    expect((await refresh(t, retry.body.refreshToken)).status).toBe(200);
    const late = await refresh(t, lost.refreshToken);
    expect(late.status).toBe(401);
    expect(late.body.error).toBe('refresh_token_reused');
    expect(await liveHeads(t, first.sessionId)).toEqual([]);
  });

  it('refuses the same key once the successor was used', async () => {
    const { t, first } = await setup();
    const second = (await refresh(t, first.refreshToken, KEY)).body;
    const third = (await refresh(t, second.refreshToken, 'key-C_0123456789abcdef')).body;
    await expectReuse(t, await refresh(t, first.refreshToken, KEY), first.sessionId, third);
  });

  it('refuses the same key after the window', async () => {
    const { t, first } = await setup();
    const second = (await refresh(t, first.refreshToken, KEY)).body;
    t.clock.advance(30_001);
    await expectReuse(t, await refresh(t, first.refreshToken, KEY), first.sessionId, second);
  });

  it('refuses the same key with a window of 0 (retries disabled)', async () => {
    const { t, first } = await setup({ ...defaults, REFRESH_REUSE_GRACE_SECONDS: '0' });
    const second = (await refresh(t, first.refreshToken, KEY)).body;
    await expectReuse(t, await refresh(t, first.refreshToken, KEY), first.sessionId, second);
  });

  it('refuses the same key once the session was logged out', async () => {
    const { t, first } = await setup();
    const second = (await refresh(t, first.refreshToken, KEY)).body;
    expect((await t.call('DELETE', '/logout', { token: second.token })).status).toBe(200);
    expect((await refresh(t, first.refreshToken, KEY)).status).toBe(401);
    expect(await liveHeads(t, first.sessionId)).toEqual([]);
  });

  it('keys are per rotation: a retry of a retry needs the key of the original rotation', async () => {
    const { t, first } = await setup();
    await refresh(t, first.refreshToken, KEY);
    const retry = await refresh(t, first.refreshToken, KEY);
    expect(retry.status).toBe(200);
    // The key stays the original rotation's: another one is still refused.
    await expectReuse(t, await refresh(t, first.refreshToken, OTHER), first.sessionId, retry.body);
  });

  it.each([
    ['too short', 'abc'],
    ['15 characters', 'a'.repeat(15)],
    ['129 characters', 'a'.repeat(129)],
    ['a space', 'key with space 0123'],
    ['a dot', 'key.with.dots.0123'],
    ['two values', `${KEY}, ${OTHER}`],
    ['empty', ''],
  ])('answers 400 invalid_request to a malformed key (%s) without touching the session', async (_, key) => {
    const { t, first } = await setup();
    const res = await refresh(t, first.refreshToken, key);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'invalid_request',
      message: 'Idempotency-Key must be 16 to 128 characters of A-Z, a-z, 0-9, "_" or "-"',
    });
    expect(JSON.stringify(res.body)).not.toContain(key || '\u0000');
    expect(await row(t, first.sessionId)).toMatchObject({ replacedBySessionId: null, revokedAt: null });
    expect((await refresh(t, first.refreshToken, KEY)).status).toBe(200);
  });

  it('accepts the bounds of the format (16 and 128 characters, every allowed character)', async () => {
    const { t, first } = await setup();
    const second = await refresh(t, first.refreshToken, `${'aZ09_-'.repeat(2)}abcd`);
    expect(second.status).toBe(200);
    expect((await refresh(t, second.body.refreshToken, 'k'.repeat(128))).status).toBe(200);
  });
});

describe('keyed retries across two instances on one database file', () => {
  let db: TempDb;
  beforeAll(() => {
    db = tempDbFile();
  });
  afterAll(() => db.remove());

  it('two concurrent same-key retries of one lost answer (30 rounds): at most one fresh session', async () => {
    const a = await makeApi({ env: defaults, client: await prepareClient(db.url) });
    const b = await makeApi({ env: defaults, client: await prepareClient(db.url) });
    const user = await createUser(a);
    let retriesOk = 0;
    for (let i = 0; i < 30; i++) {
      const first = await signIn(a, user);
      const key = `round-${i}-0123456789abcdef`;
      await refresh(a, first.refreshToken, key); // the lost answer
      const [x, y] = await Promise.all([refresh(a, first.refreshToken, key), refresh(b, first.refreshToken, key)]);
      const ok = [x, y].filter((r) => r.status === 200);
      expect(ok.length).toBeLessThanOrEqual(1);
      for (const r of [x, y]) if (r.status !== 200) expect(r.body.error).toBe('refresh_token_reused');
      retriesOk += ok.length;
      const heads = await liveHeads(a, first.sessionId);
      expect(heads.length).toBeLessThanOrEqual(1);
      // Never more than the one original successor plus one fresh session were created.
      expect((await chainRows(a, first.sessionId)).length).toBeLessThanOrEqual(3);
    }
    expect(retriesOk).toBeGreaterThan(0);
  }, 120_000);

  it('one attempt sent twice at once (the caller gave up on the first): the same key never revokes, one live head (30 rounds)', async () => {
    const a = await makeApi({ env: defaults, client: await prepareClient(db.url) });
    const b = await makeApi({ env: defaults, client: await prepareClient(db.url) });
    const user = await createUser(a);
    for (let i = 0; i < 30; i++) {
      const first = await signIn(a, user);
      const key = `twice-${i}-0123456789abcdef`;
      const [x, y] = await Promise.all([refresh(a, first.refreshToken, key), refresh(b, first.refreshToken, key)]);
      // Whoever lost the claim (or came second) is answered as a retry of the other: both 200, the later one live.
      expect([x.status, y.status], JSON.stringify([x.body?.error, y.body?.error])).toEqual([200, 200]);
      const heads = await liveHeads(a, first.sessionId);
      expect(heads).toHaveLength(1);
      expect([x.body.sessionId, y.body.sessionId]).toContain(heads[0]!.id);
    }
  }, 120_000);

  it('two attempts with different keys at once: at most one 200, never two live heads (30 rounds)', async () => {
    const a = await makeApi({ env: defaults, client: await prepareClient(db.url) });
    const b = await makeApi({ env: defaults, client: await prepareClient(db.url) });
    const user = await createUser(a);
    for (let i = 0; i < 30; i++) {
      const first = await signIn(a, user);
      const [x, y] = await Promise.all([
        refresh(a, first.refreshToken, `one-${i}-0123456789abcdef`),
        refresh(b, first.refreshToken, `two-${i}-0123456789abcdef`),
      ]);
      expect([x, y].filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
      for (const r of [x, y]) if (r.status !== 200) expect(r.body.error).toBe('refresh_token_reused');
      expect((await liveHeads(a, first.sessionId)).length).toBeLessThanOrEqual(1);
    }
  }, 120_000);
});
