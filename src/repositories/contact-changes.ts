/** Drizzle queries on `contact_changes` (docs/contact-change.md). No business rules here. */
import { and, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { contactChanges, type ContactChangeRow } from '../db/schema.js';

export type ContactChannel = 'email' | 'phone';

/** The newest not-completed change of the channel, or null. */
export async function findPendingChange(
  db: Db,
  userId: string,
  channel: ContactChannel,
): Promise<ContactChangeRow | null> {
  const [row] = await db
    .select()
    .from(contactChanges)
    .where(
      and(eq(contactChanges.userId, userId), eq(contactChanges.channel, channel), isNull(contactChanges.completedAt)),
    )
    .orderBy(desc(contactChanges.createdAt))
    .limit(1);
  return row ?? null;
}

/** Drops the channel's pending changes: only the newest code may complete a change. */
export const deletePendingChanges = (db: Db, userId: string, channel: ContactChannel) =>
  db
    .delete(contactChanges)
    .where(
      and(eq(contactChanges.userId, userId), eq(contactChanges.channel, channel), isNull(contactChanges.completedAt)),
    );

/** Counts one code submission while the row is open and under the cap; 0 rows changed = no attempt left. */
export async function countChangeAttempt(db: Db, id: string, maxAttempts: number): Promise<number> {
  const res = await db
    .update(contactChanges)
    .set({ attempts: sql`${contactChanges.attempts} + 1` })
    .where(
      and(eq(contactChanges.id, id), isNull(contactChanges.completedAt), lt(contactChanges.attempts, maxAttempts)),
    );
  return res.rowsAffected;
}

/**
 * Claims the pending row for completion: of two concurrent correct
 * submissions only one sets `completed_at` (the other affects no row).
 */
export const claimChange = (
  db: Db,
  id: string,
  codeHash: string,
  reportTokenHash: string | null,
  now: Date,
  reportExpiresAt: Date | null,
) =>
  db
    .update(contactChanges)
    .set({ completedAt: now, reportTokenHash, reportExpiresAt })
    .where(and(eq(contactChanges.id, id), eq(contactChanges.codeHash, codeHash), isNull(contactChanges.completedAt)));

/** The completed change a report token was issued for, while the token is valid and unused. */
export async function findReportableChange(
  db: Db,
  reportTokenHash: string,
  now: Date,
): Promise<ContactChangeRow | null> {
  const [row] = await db
    .select()
    .from(contactChanges)
    .where(
      and(
        eq(contactChanges.reportTokenHash, reportTokenHash),
        isNull(contactChanges.reportedAt),
        gt(contactChanges.reportExpiresAt, now),
      ),
    )
    .limit(1);
  return row ?? null;
}

/** Marks a report used; conditional, so a token reports once. */
export const markReported = (db: Db, id: string, now: Date) =>
  db
    .update(contactChanges)
    .set({ reportedAt: now })
    .where(and(eq(contactChanges.id, id), isNull(contactChanges.reportedAt)));
