/** Drizzle queries on `credentials` (passkeys, contract §2.2). No business rules here. */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { fastAll, type BatchRead } from '../db/driver/fast-get.js';
import { prepared } from '../db/driver/prepared.js';
import { credentials, type CredentialRow } from '../db/schema.js';

// `/users/me` and every passkey ceremony list them: prepared once (src/db/driver/prepared.ts),
// rows mapped by a plan made once (src/db/driver/fast-get.ts).
const ofUser = prepared((db) =>
  fastAll(
    db
      .select()
      .from(credentials)
      .where(eq(credentials.userId, sql.placeholder('userId')))
      .orderBy(asc(credentials.createdAt))
      .prepare(),
  ),
);

export type NewCredential = typeof credentials.$inferInsert;

export function listCredentials(db: Db, userId: string): Promise<CredentialRow[]> {
  return ofUser(db).all({ userId });
}

/** `listCredentials` as one read of a batch (src/db/driver/read-together.ts). */
export function credentialsRead(db: Db, userId: string): BatchRead<CredentialRow[]> {
  return ofUser(db).read({ userId });
}

export async function findUserCredential(db: Db, userId: string, id: string): Promise<CredentialRow | null> {
  const [row] = await db
    .select()
    .from(credentials)
    .where(and(eq(credentials.id, id), eq(credentials.userId, userId)));
  return row ?? null;
}

/** Inserts unless the credential id exists (any owner); false on conflict. */
export async function insertCredential(db: Db, row: NewCredential): Promise<boolean> {
  const inserted = await db.insert(credentials).values(row).onConflictDoNothing().returning({ id: credentials.id });
  return inserted.length === 1;
}

/**
 * Records a use (counter, backup state BS, last use): the counter moves only
 * from the value the verification read, so two racing assertions with the
 * same counter cannot both succeed.
 */
export async function recordCredentialUse(
  db: Db,
  id: string,
  use: { expectedCounter: number; newCounter: number; backedUp: boolean; now: Date },
): Promise<boolean> {
  const { expectedCounter, newCounter, backedUp, now } = use;
  const updated = await db
    .update(credentials)
    .set({ counter: newCounter, backedUp, lastUsedAt: now, updatedAt: now })
    .where(and(eq(credentials.id, id), eq(credentials.counter, expectedCounter)))
    .returning({ id: credentials.id });
  return updated.length === 1;
}

export async function updateCredentialLabels(
  db: Db,
  userId: string,
  id: string,
  fields: { friendlyName?: string | null; deviceInfo?: string | null },
  now: Date,
): Promise<CredentialRow | null> {
  const [row] = await db
    .update(credentials)
    .set({ ...fields, updatedAt: now })
    .where(and(eq(credentials.id, id), eq(credentials.userId, userId)))
    .returning();
  return row ?? null;
}

/**
 * Deletes one credential of a user. With `keepOne`, the delete only happens
 * while the user has another credential (one statement, so two concurrent
 * deletions cannot remove the last passkey together).
 */
export async function deleteUserCredential(db: Db, userId: string, id: string, keepOne: boolean): Promise<boolean> {
  const owned = and(eq(credentials.id, id), eq(credentials.userId, userId));
  const where = keepOne
    ? and(owned, sql`(SELECT count(*) FROM ${credentials} c2 WHERE c2.user_id = ${userId}) > 1`)
    : owned;
  const deleted = await db.delete(credentials).where(where).returning({ id: credentials.id });
  return deleted.length === 1;
}
