/** Drizzle queries on `magic_link_tokens` (contract §2.8). Single use is decided by `rowsAffected`. */
import { and, desc, eq, gt, isNotNull, isNull } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { magicLinkTokens } from '../db/schema.js';

export type MagicLinkRow = typeof magicLinkTokens.$inferSelect;

/** Expires every live link of the user and stores the new one, in one batch. */
export async function replaceMagicLink(db: Db, row: typeof magicLinkTokens.$inferInsert, now: Date): Promise<void> {
  await db.batch([
    db.update(magicLinkTokens).set({ expiresAt: now }).where(and(eq(magicLinkTokens.userId, row.userId), gt(magicLinkTokens.expiresAt, now))),
    db.insert(magicLinkTokens).values(row),
  ]);
}

/** The atomic verify: marks an unused, unexpired link used. Returns the owner or null. */
export async function markMagicLinkUsed(db: Db, tokenHash: string, now: Date): Promise<{ userId: string } | null> {
  const [row] = await db
    .update(magicLinkTokens)
    .set({ usedAt: now })
    .where(and(eq(magicLinkTokens.tokenHash, tokenHash), isNull(magicLinkTokens.usedAt), gt(magicLinkTokens.expiresAt, now)))
    .returning({ userId: magicLinkTokens.userId });
  return row ?? null;
}

export async function findMagicLinkByHash(db: Db, tokenHash: string): Promise<MagicLinkRow | null> {
  const [row] = await db.select().from(magicLinkTokens).where(eq(magicLinkTokens.tokenHash, tokenHash));
  return row ?? null;
}

export async function newestLiveMagicLink(db: Db, userId: string, now: Date): Promise<MagicLinkRow | null> {
  const [row] = await db
    .select()
    .from(magicLinkTokens)
    .where(and(eq(magicLinkTokens.userId, userId), gt(magicLinkTokens.expiresAt, now)))
    .orderBy(desc(magicLinkTokens.createdAt))
    .limit(1);
  return row ?? null;
}

/** The atomic claim of the poll (D5c): exactly one caller gets 1. */
export async function claimMagicLinkSession(db: Db, id: string, now: Date): Promise<number> {
  const res = await db
    .update(magicLinkTokens)
    .set({ sessionIssuedAt: now })
    .where(and(eq(magicLinkTokens.id, id), isNotNull(magicLinkTokens.usedAt), isNull(magicLinkTokens.sessionIssuedAt), gt(magicLinkTokens.expiresAt, now)));
  return res.rowsAffected;
}
