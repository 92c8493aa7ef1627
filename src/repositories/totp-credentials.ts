/** Drizzle queries on `totp_credentials` (contract §2.6). No business rules here. */
import { and, desc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { totpCredentials, type TotpCredentialRow } from '../db/schema.js';

/** Pending = an enrollment not yet verified (contract §2.6). */
const pendingWhere = and(eq(totpCredentials.enabled, false), isNull(totpCredentials.verifiedAt));

export async function findEnabledTotp(db: Db, userId: string): Promise<TotpCredentialRow | null> {
  const [row] = await db
    .select()
    .from(totpCredentials)
    .where(and(eq(totpCredentials.userId, userId), eq(totpCredentials.enabled, true)))
    .limit(1);
  return row ?? null;
}

/** The newest pending enrollment created after `notBefore`. */
export async function findNewestPendingTotp(
  db: Db,
  userId: string,
  notBefore: Date,
): Promise<TotpCredentialRow | null> {
  const [row] = await db
    .select()
    .from(totpCredentials)
    .where(and(eq(totpCredentials.userId, userId), pendingWhere, gt(totpCredentials.createdAt, notBefore)))
    .orderBy(desc(totpCredentials.createdAt))
    .limit(1);
  return row ?? null;
}

/** A counter strictly above the last used one (replay protection, contract §3.12). */
const counterIsNew = (counter: number) =>
  or(isNull(totpCredentials.lastUsedCounter), lt(totpCredentials.lastUsedCounter, counter));

/** Deletes the user's pending enrollments and stores a new one, in one batch. */
export async function replacePendingTotp(db: Db, row: typeof totpCredentials.$inferInsert): Promise<void> {
  await db.batch([
    db.delete(totpCredentials).where(and(eq(totpCredentials.userId, row.userId), pendingWhere)),
    db.insert(totpCredentials).values(row),
  ]);
}

/**
 * Spends `counter` on an enabled credential: one conditional UPDATE, so two
 * concurrent uses of one code cannot both pass. False = replay or gone.
 */
export async function useTotpCounter(db: Db, id: string, counter: number, now: Date): Promise<boolean> {
  const res = await db
    .update(totpCredentials)
    .set({ lastUsedCounter: counter, lastUsedAt: now, updatedAt: now })
    .where(and(eq(totpCredentials.id, id), eq(totpCredentials.enabled, true), counterIsNew(counter)));
  return res.rowsAffected === 1;
}

/**
 * Enables a pending enrollment (spending `counter`) and disables the user's
 * previously enabled row, atomically. The disable step only runs while the
 * pending row is still pending, so a lost race changes nothing.
 */
export async function activatePendingTotp(
  db: Db,
  input: { userId: string; id: string; counter: number; now: Date },
): Promise<boolean> {
  const { userId, id, counter, now } = input;
  const [, enabled] = await db.batch([
    db
      .update(totpCredentials)
      .set({ enabled: false, updatedAt: now })
      .where(
        and(
          eq(totpCredentials.userId, userId),
          eq(totpCredentials.enabled, true),
          sql`exists (select 1 from ${totpCredentials} p where p.id = ${id} and p.enabled = 0 and p.verified_at is null)`,
        ),
      ),
    db
      .update(totpCredentials)
      .set({ enabled: true, verifiedAt: now, lastUsedAt: now, lastUsedCounter: counter, updatedAt: now })
      .where(and(eq(totpCredentials.id, id), pendingWhere, counterIsNew(counter))),
  ]);
  return enabled.rowsAffected === 1;
}

/** Deletes the enabled credential while spending `counter` (disable). False = replay or gone. */
export async function deleteEnabledTotp(db: Db, id: string, counter: number): Promise<boolean> {
  const res = await db
    .delete(totpCredentials)
    .where(and(eq(totpCredentials.id, id), eq(totpCredentials.enabled, true), counterIsNew(counter)));
  return res.rowsAffected === 1;
}
