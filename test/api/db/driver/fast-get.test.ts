/**
 * `fastGet` (src/db/driver/fast-get.ts) against drizzle's own `.get()` on the same
 * prepared query, on both clients svc runs files with: the embedded client
 * (Node's `libsql` binding, src/db/driver/embedded-client.ts) and `@libsql/client`.
 * Every case must answer exactly as drizzle: the same values, types and key
 * order (compared through JSON too), NULLs, a left join with no row (the
 * object becomes null), top-level fields, a blob (handed back to drizzle),
 * no row at all, and a missing placeholder value.
 */
import type { Client } from '@libsql/client';
import { eq, sql } from 'drizzle-orm';
import { blob, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../../src/db/client.js';
import { fastAll, fastGet } from '../../../../src/db/driver/fast-get.js';
import { readTogether } from '../../../../src/db/driver/read-together.js';
import { credentials, sessions, users } from '../../../../src/db/schema.js';
import { FILE_CLIENTS, migratedDatabase, type FileClientKind } from '../../../helpers/file-clients.js';

const blobs = sqliteTable('fast_get_blobs', { id: text().primaryKey(), data: blob({ mode: 'buffer' }) });

const clients: Client[] = [];
afterAll(() => clients.forEach((c) => c.close()));

async function database(kind: FileClientKind): Promise<Db> {
  const { db, client } = await migratedDatabase(kind, clients);
  await client.execute('CREATE TABLE fast_get_blobs (id TEXT PRIMARY KEY, data BLOB)');
  const t = new Date(1_800_000_000_123);
  await db.insert(users).values([
    {
      id: 'u-full',
      email: 'full@example.com',
      phone: '+14155550100',
      roles: ['user', 'admin:read'],
      verified: true,
      emailVerified: true,
      phoneVerified: true,
      revoked: false,
      createdAt: t,
      updatedAt: t,
    },
    {
      id: 'u-bare',
      email: 'bare@example.com',
      phone: null,
      roles: [],
      verified: false,
      emailVerified: false,
      phoneVerified: false,
      revoked: true,
      createdAt: t,
      updatedAt: t,
    },
  ] as never);
  const session = {
    chainId: 'c',
    refreshTokenHash: 'h',
    expiresAt: new Date(t.getTime() + 1000),
    idleExpiresAt: new Date(t.getTime() + 500),
    createdAt: t,
    updatedAt: t,
  };
  await db.insert(sessions).values([
    {
      ...session,
      id: 's-full',
      userId: 'u-full',
      refreshTokenLookup: 'l-full',
      userAgent: 'ua',
      ipAddress: '203.0.113.7',
      mode: 'server',
      stepUpVerifiedAt: t,
      stepUpMethod: 'totp',
      lastUsedAt: t,
    },
    {
      ...session,
      id: 's-bare',
      userId: 'u-bare',
      refreshTokenLookup: 'l-bare',
      userAgent: null,
      ipAddress: null,
      revokedAt: t,
      revokedReason: 'user_logout',
    },
  ] as never);
  await db.insert(blobs).values({ id: 'b', data: Buffer.from([0, 1, 2, 255]) });
  return db;
}

const queries = (db: Db) => ({
  inner: db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.id, sql.placeholder('id')))
    .limit(1)
    .prepare(),
  left: db
    .select({ session: sessions, user: users })
    .from(sessions)
    .leftJoin(users, eq(users.id, sql.placeholder('joinId')))
    .where(eq(sessions.id, sql.placeholder('id')))
    .limit(1)
    .prepare(),
  flat: db
    .select({
      id: users.id,
      email: users.email,
      roles: users.roles,
      revoked: users.revoked,
      createdAt: users.createdAt,
    })
    .from(users)
    .where(eq(users.id, sql.placeholder('id')))
    .prepare(),
  whole: db
    .select()
    .from(users)
    .where(eq(users.id, sql.placeholder('id')))
    .prepare(),
  credential: db
    .select()
    .from(credentials)
    .where(eq(credentials.userId, sql.placeholder('id')))
    .prepare(),
  blob: db
    .select()
    .from(blobs)
    .where(eq(blobs.id, sql.placeholder('id')))
    .prepare(),
});

const CASES: [keyof ReturnType<typeof queries>, Record<string, unknown>][] = [
  ['inner', { id: 's-full' }],
  ['inner', { id: 's-bare' }],
  ['inner', { id: 'no-such-session' }],
  ['left', { id: 's-full', joinId: 'u-full' }],
  ['left', { id: 's-full', joinId: 'no-such-user' }],
  ['flat', { id: 'u-full' }],
  ['flat', { id: 'u-bare' }],
  ['whole', { id: 'u-bare' }],
  ['credential', { id: 'u-full' }],
  ['blob', { id: 'b' }],
];

describe.each(FILE_CLIENTS)('fastGet on the %s client', (kind) => {
  it.each(CASES)('%s %j answers as drizzle .get()', async (name, values) => {
    const db = await database(kind);
    const query = queries(db)[name];
    const expected = await query.get(values as never);
    const actual = await fastGet(query).get(values);
    expect(actual).toStrictEqual(expected);
    expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
  });

  it('maps a left join with no row to null, and dates, booleans and JSON to their types', async () => {
    const db = await database(kind);
    const q = queries(db);
    const missing = await fastGet(q.left).get({ id: 's-full', joinId: 'nobody' });
    expect(missing?.user).toBeNull();
    expect(missing?.session.id).toBe('s-full');
    const full = await fastGet(q.inner).get({ id: 's-full' });
    expect(full?.session.expiresAt).toEqual(new Date(1_800_000_001_123));
    expect(full?.user.roles).toEqual(['user', 'admin:read']);
    expect(full?.user.phoneVerified).toBe(true);
    const blobRow = await fastGet(q.blob).get({ id: 'b' });
    expect(Buffer.isBuffer(blobRow?.data)).toBe(true);
  });

  it("refuses a missing placeholder value with drizzle's message", async () => {
    const db = await database(kind);
    const q = queries(db).inner;
    await expect(fastGet(q).get({})).rejects.toThrow('No value for placeholder "id" was provided');
    await expect(q.get({} as never)).rejects.toThrow('No value for placeholder "id" was provided');
  });
});

describe.each(FILE_CLIENTS)('fastAll and readTogether on the %s client', (kind) => {
  const LISTS: [keyof ReturnType<typeof queries>, Record<string, unknown>][] = [
    ['credential', { id: 'u-full' }],
    ['credential', { id: 'nobody' }],
    ['whole', { id: 'u-full' }],
    ['left', { id: 's-full', joinId: 'no-such-user' }],
    ['blob', { id: 'b' }],
  ];

  it.each(LISTS)('%s %j: fastAll answers as drizzle .all()', async (name, values) => {
    const db = await database(kind);
    const query = queries(db)[name];
    const expected = await query.all(values as never);
    const actual = await fastAll(query).all(values);
    expect(actual).toStrictEqual(expected);
    expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
  });

  it('answers every read of one batch as its own .get() / .all() would', async () => {
    const db = await database(kind);
    const q = queries(db);
    const [inner, missing, creds, blobRow, none] = await readTogether([
      fastGet(q.inner).read({ id: 's-full' }),
      fastGet(q.left).read({ id: 's-full', joinId: 'nobody' }),
      fastAll(q.credential).read({ id: 'u-full' }),
      fastGet(q.blob).read({ id: 'b' }),
      fastGet(q.whole).read({ id: 'no-such-user' }),
    ] as const);
    expect(inner).toStrictEqual(await q.inner.get({ id: 's-full' }));
    expect(missing).toStrictEqual(await q.left.get({ id: 's-full', joinId: 'nobody' }));
    expect(missing?.user).toBeNull();
    expect(creds).toStrictEqual(await q.credential.all({ id: 'u-full' }));
    expect(Buffer.isBuffer(blobRow?.data)).toBe(true);
    expect(blobRow).toStrictEqual(await q.blob.get({ id: 'b' }));
    expect(none).toBeUndefined();
  });

  it('refuses reads prepared on two database handles, and a missing placeholder value', async () => {
    const [a, b] = [await database(kind), await database(kind)];
    await expect(
      readTogether([
        fastGet(queries(a).inner).read({ id: 's-full' }),
        fastGet(queries(b).inner).read({ id: 's-full' }),
      ]),
    ).rejects.toThrow('same database handle');
    expect(() => fastGet(queries(a).inner).read({})).toThrow('No value for placeholder "id" was provided');
  });
});
