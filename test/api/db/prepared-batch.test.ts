/**
 * `preparedWrite` / `batchWrites` (src/db/prepared-batch.ts), through the
 * issuance's own statements (`sessionInsert`, `lastLoginTouch`): each binds to
 * exactly the SQL and arguments the query builder produces for the same values
 * (column encoders included), and a batch commits all of its statements or
 * none, on both file clients.
 */
import type { Client } from '@libsql/client';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/client.js';
import { batchWrites } from '../../../src/db/prepared-batch.js';
import { sessions, users } from '../../../src/db/schema.js';
import { sessionInsert } from '../../../src/repositories/sessions.js';
import { lastLoginTouch } from '../../../src/repositories/users.js';
import { FILE_CLIENTS, migratedDatabase } from '../../helpers/file-clients.js';

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

    const touchBuilt = db.update(users).set({ lastLoginAt: new Date(T) }).where(eq(users.id, 'u1')).toSQL();
    const touch = lastLoginTouch(db);
    expect(touch.bind({ nowMs: T, userId: 'u1' })).toEqual({ sql: touchBuilt.sql, args: touchBuilt.params });
    expect(() => touch.bind({ userId: 'u1' })).toThrow('No value for placeholder "nowMs" was provided');
  });

  it('commit every statement of a batch, or none when one fails', async () => {
    const { db } = await migratedDatabase(kind, clients);
    await db.insert(users).values({ id: 'u1', email: 'u1@example.com', roles: [], createdAt: new Date(T), updatedAt: new Date(T) } as never);
    const insert = sessionInsert(db);
    const touch = lastLoginTouch(db);
    // The third statement breaks the lookup's UNIQUE index: nothing of the batch may remain.
    await expect(batchWrites(insert.client, [insert.bind(values), touch.bind({ nowMs: T, userId: 'u1' })], [insertBuilt(db)])).rejects.toThrow();
    expect(await db.select().from(sessions)).toEqual([]);
    expect((await db.select().from(users).where(eq(users.id, 'u1')))[0]?.lastLoginAt).toBeNull();

    await batchWrites(insert.client, [insert.bind(values), touch.bind({ nowMs: T, userId: 'u1' })]);
    const [row] = await db.select().from(sessions);
    expect(row).toMatchObject({ id: 's1', chainId: 's1', userId: 'u1', expiresAt: new Date(T + 1000), authTime: new Date(T), ipAddress: null, mode: 'server' });
    expect((await db.select().from(users).where(eq(users.id, 'u1')))[0]?.lastLoginAt).toEqual(new Date(T));
  });
});
