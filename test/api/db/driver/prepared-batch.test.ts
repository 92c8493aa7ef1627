/**
 * `preparedWrite` / `preparedStatement` / `batchWrites`
 * (src/db/driver/prepared-batch.ts), through the issuance's own statements
 * (`sessionInsert`, `lastLoginTouch`) and the refresh rotation's
 * (`rotateSession`): each binds to exactly the SQL and arguments drizzle
 * renders for the same values (column encoders included), a batch commits all
 * of its statements or none, and a rotation whose claim lost writes nothing,
 * on both file clients.
 */
import type { Client } from '@libsql/client';
import { eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../../src/db/client.js';
import { batchWrites, preparedStatement } from '../../../../src/db/driver/prepared-batch.js';
import { organizationMemberships, organizations, sessions, users } from '../../../../src/db/schema.js';
import { rotateRetry, rotateSession } from '../../../../src/repositories/session-rotation.js';
import { sessionInsert } from '../../../../src/repositories/sessions.js';
import { lastLoginTouch } from '../../../../src/repositories/users.js';
import { FILE_CLIENTS, migratedDatabase } from '../../../helpers/file-clients.js';

const clients: Client[] = [];
afterAll(() => clients.forEach((c) => c.close()));

const T = 1_800_000_000_123;
const values = {
  id: 's1',
  userId: 'u1',
  infraId: null,
  organizationId: null,
  refreshTokenHash: '$2b$04$hash',
  refreshTokenLookup: 'f'.repeat(64),
  userAgent: 'agent/1.0',
  ipAddress: null,
  place: 'Paris, FR',
  expiresAt: new Date(T + 1000),
  idleExpiresAt: new Date(T + 500),
  authMethod: 'email_otp' as const,
  now: new Date(T),
};

const insertBuilt = (db: Db) =>
  db.insert(sessions).values({
    id: values.id,
    userId: values.userId,
    chainId: values.id,
    infraId: values.infraId,
    organizationId: values.organizationId,
    mode: 'server',
    refreshTokenHash: values.refreshTokenHash,
    refreshTokenLookup: values.refreshTokenLookup,
    userAgent: values.userAgent,
    ipAddress: values.ipAddress,
    place: values.place,
    expiresAt: values.expiresAt,
    idleExpiresAt: values.idleExpiresAt,
    authTime: values.now,
    authMethod: values.authMethod,
    createdAt: values.now,
    updatedAt: values.now,
  });

describe.each(FILE_CLIENTS)('prepared writes on the %s client', (kind) => {
  it('bind to the same SQL and arguments as the builder (Dates encoded as epoch ms, NULLs kept)', async () => {
    const { db } = await migratedDatabase(kind, clients);
    const built = insertBuilt(db).toSQL();
    const bound = sessionInsert(db).bind(values);
    expect(bound).toEqual({ sql: built.sql, args: built.params });
    expect(bound.args).toContain(T + 1000);

    const touchBuilt = db
      .update(users)
      .set({ lastLoginAt: new Date(T) })
      .where(eq(users.id, 'u1'))
      .toSQL();
    const touch = lastLoginTouch(db);
    expect(touch.bind({ nowMs: T, userId: 'u1' })).toEqual({ sql: touchBuilt.sql, args: touchBuilt.params });
    expect(() => touch.bind({ userId: 'u1' })).toThrow('No value for placeholder "nowMs" was provided');
  });

  it('commit every statement of a batch, or none when one fails', async () => {
    const { db } = await migratedDatabase(kind, clients);
    await db.insert(users).values({
      id: 'u1',
      email: 'u1@example.com',
      roles: [],
      createdAt: new Date(T),
      updatedAt: new Date(T),
    } as never);
    const insert = sessionInsert(db);
    const touch = lastLoginTouch(db);
    // The third statement breaks the lookup's UNIQUE index: nothing of the batch may remain.
    await expect(
      batchWrites(insert.client, [insert.bind(values), touch.bind({ nowMs: T, userId: 'u1' })], [insertBuilt(db)]),
    ).rejects.toThrow();
    expect(await db.select().from(sessions)).toEqual([]);
    expect((await db.select().from(users).where(eq(users.id, 'u1')))[0]?.lastLoginAt).toBeNull();

    await batchWrites(insert.client, [insert.bind(values), touch.bind({ nowMs: T, userId: 'u1' })]);
    const [row] = await db.select().from(sessions);
    expect(row).toMatchObject({
      id: 's1',
      chainId: 's1',
      userId: 'u1',
      expiresAt: new Date(T + 1000),
      authTime: new Date(T),
      ipAddress: null,
      mode: 'server',
    });
    expect((await db.select().from(users).where(eq(users.id, 'u1')))[0]?.lastLoginAt).toEqual(new Date(T));
  });

  it('render a raw statement once and bind its placeholders in order, as drizzle renders the same values', async () => {
    const { db } = await migratedDatabase(kind, clients);
    const p = sql.placeholder;
    const stmt = preparedStatement(
      db,
      sql`UPDATE sessions SET revoked_at = ${p('nowMs')}, revoked_reason = 'x' WHERE id = ${p('id')} AND revoked_at IS NULL`,
    );
    const rendered = db
      .run(sql`UPDATE sessions SET revoked_at = ${T}, revoked_reason = 'x' WHERE id = ${'s1'} AND revoked_at IS NULL`)
      .getQuery();
    expect(stmt.bind({ id: 's1', nowMs: T })).toEqual({ sql: rendered.sql, args: rendered.params });
    expect(() => stmt.bind({ nowMs: T })).toThrow('No value for placeholder "id" was provided');
  });

  it('rotate a session once: the claim that lost inserts no successor', async () => {
    const { db } = await migratedDatabase(kind, clients);
    await db.insert(users).values({
      id: 'u1',
      email: 'u1@example.com',
      roles: [],
      createdAt: new Date(T),
      updatedAt: new Date(T),
    } as never);
    const insert = sessionInsert(db);
    await batchWrites(insert.client, [insert.bind(values)]);
    const rotation = {
      presentedId: 's1',
      newHash: '$2b$04$next',
      userAgent: 'agent/2.0',
      ip: '203.0.113.9',
      place: null,
      idleCandidateMs: T + 9000,
      nowMs: T + 10,
      keyHash: 'k'.repeat(64),
    };

    const won = await rotateSession(db, { ...rotation, newId: 's2', newLookup: 'a'.repeat(64) });
    expect(won.claimed).toBe(true);
    expect(won.successor).toMatchObject({ organization_id: null, auth_method: 'email_otp', auth_time: T });
    // The losing claim writes nothing: not even its own key hash over the winner's.
    const lost = await rotateSession(db, {
      ...rotation,
      newId: 's3',
      newLookup: 'b'.repeat(64),
      keyHash: 'x'.repeat(64),
    });
    expect(lost).toEqual({ claimed: false, successor: undefined });

    const rows = await db.select().from(sessions).orderBy(sessions.id);
    expect(rows.map((r) => [r.id, r.replacedBySessionId, r.refreshIdempotencyKeyHash])).toEqual([
      ['s1', 's2', 'k'.repeat(64)],
      ['s2', null, null],
    ]);
    // The successor keeps the chain and the absolute expiry; its idle expiry is capped by it.
    expect(rows[1]).toMatchObject({
      chainId: 's1',
      expiresAt: new Date(T + 1000),
      idleExpiresAt: new Date(T + 1000),
      userAgent: 'agent/2.0',
      ipAddress: '203.0.113.9',
      refreshTokenHash: '$2b$04$next',
    });
    expect(rows[0]?.lastUsedAt).toEqual(new Date(T + 10));
  });

  it('retry a rotation: the unused successor is retired and its organization (while a member) and step-up carry over, once', async () => {
    const { db } = await migratedDatabase(kind, clients);
    const at = new Date(T);
    await db
      .insert(users)
      .values({ id: 'u1', email: 'u1@example.com', roles: [], createdAt: at, updatedAt: at } as never);
    await db.insert(organizations).values([
      { id: 'o1', name: 'One', slug: 'one', createdAt: at, updatedAt: at },
      { id: 'o2', name: 'Two', slug: 'two', createdAt: at, updatedAt: at },
    ]);
    await db
      .insert(organizationMemberships)
      .values({ id: 'm1', organizationId: 'o1', userId: 'u1', createdAt: at, updatedAt: at });
    const insert = sessionInsert(db);
    await batchWrites(insert.client, [insert.bind(values)]);
    const rotation = {
      presentedId: 's1',
      newHash: '$2b$04$next',
      userAgent: null,
      ip: null,
      place: null,
      idleCandidateMs: T + 900,
      nowMs: T + 10,
      keyHash: 'k'.repeat(64),
    };
    expect((await rotateSession(db, { ...rotation, newId: 's2', newLookup: 'a'.repeat(64) })).claimed).toBe(true);
    // The lost successor had switched organization and stepped up before the retry.
    await db
      .update(sessions)
      .set({ organizationId: 'o1', stepUpVerifiedAt: new Date(T + 5), stepUpMethod: 'totp' })
      .where(eq(sessions.id, 's2'));

    const again = await rotateRetry(db, {
      ...rotation,
      newId: 's3',
      newLookup: 'b'.repeat(64),
      successorId: 's2',
      nowMs: T + 20,
    });
    expect(again?.successor).toMatchObject({
      organization_id: 'o1',
      step_up_method: 'totp',
      step_up_verified_at: T + 5,
    });
    const rows = await db.select().from(sessions).orderBy(sessions.id);
    expect(rows.map((r) => [r.id, r.replacedBySessionId, r.revokedReason])).toEqual([
      ['s1', 's3', null],
      ['s2', 's3', 'refresh_retry_superseded'],
      ['s3', null, null],
    ]);
    // The retry keeps the key of the rotation it repeats: only that key may retry again.
    expect(rows[0]?.refreshIdempotencyKeyHash).toBe('k'.repeat(64));
    // A second retry of the same lost answer finds the successor already retired: nothing is written.
    expect(
      await rotateRetry(db, { ...rotation, newId: 's4', newLookup: 'c'.repeat(64), successorId: 's2', nowMs: T + 30 }),
    ).toBeUndefined();
    expect(await db.select().from(sessions)).toHaveLength(3);

    // An organization the user has left is not carried over.
    await db.update(sessions).set({ organizationId: 'o2' }).where(eq(sessions.id, 's3'));
    expect(
      (await rotateSession(db, { ...rotation, presentedId: 's3', newId: 's5', newLookup: 'd'.repeat(64) })).successor
        ?.organization_id,
    ).toBeNull();
  });
});
