/** Drizzle queries on `magic_link_tokens` (contract §2.8). Single use is decided by `rowsAffected`. */
import { and, desc, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { prepared } from '../db/driver/prepared.js';
import { magicLinkTokens } from '../db/schema.js';

// The verify and the poll run per request: prepared once (src/db/driver/prepared.ts); `nowMs` binds as epoch ms.
const liveByHash = prepared((db) =>
  db
    .select()
    .from(magicLinkTokens)
    .where(
      and(
        eq(magicLinkTokens.tokenHash, sql.placeholder('tokenHash')),
        isNull(magicLinkTokens.usedAt),
        gt(magicLinkTokens.expiresAt, sql.placeholder('nowMs')),
      ),
    )
    .prepare(),
);
// One judgement per link: `used_at IS NULL` lets exactly one verify (or one guess) through.
const settle = (refused: boolean) =>
  prepared((db) =>
    db
      .update(magicLinkTokens)
      .set(
        refused
          ? { usedAt: sql`${sql.placeholder('nowMs')}`, refusedAt: sql`${sql.placeholder('nowMs')}` }
          : { usedAt: sql`${sql.placeholder('nowMs')}` },
      )
      .where(
        and(
          eq(magicLinkTokens.id, sql.placeholder('id')),
          isNull(magicLinkTokens.usedAt),
          gt(magicLinkTokens.expiresAt, sql.placeholder('nowMs')),
        ),
      )
      .prepare(),
  );
const accept = settle(false);
const refuse = settle(true);
const newestLive = prepared((db) =>
  db
    .select()
    .from(magicLinkTokens)
    .where(
      and(
        eq(magicLinkTokens.userId, sql.placeholder('userId')),
        gt(magicLinkTokens.expiresAt, sql.placeholder('nowMs')),
      ),
    )
    .orderBy(desc(magicLinkTokens.createdAt))
    .limit(1)
    .prepare(),
);
const claimSession = prepared((db) =>
  db
    .update(magicLinkTokens)
    .set({ sessionIssuedAt: sql`${sql.placeholder('nowMs')}` })
    .where(
      and(
        eq(magicLinkTokens.id, sql.placeholder('id')),
        isNotNull(magicLinkTokens.usedAt),
        isNull(magicLinkTokens.refusedAt),
        isNull(magicLinkTokens.sessionIssuedAt),
        gt(magicLinkTokens.expiresAt, sql.placeholder('nowMs')),
      ),
    )
    .prepare(),
);
const byHash = prepared((db) =>
  db
    .select()
    .from(magicLinkTokens)
    .where(eq(magicLinkTokens.tokenHash, sql.placeholder('tokenHash')))
    .prepare(),
);

export type MagicLinkRow = typeof magicLinkTokens.$inferSelect;

/** Expires every live link of the user and stores the new one, in one batch. */
export async function replaceMagicLink(db: Db, row: typeof magicLinkTokens.$inferInsert, now: Date): Promise<void> {
  await db.batch([
    db
      .update(magicLinkTokens)
      .set({ expiresAt: now })
      .where(and(eq(magicLinkTokens.userId, row.userId), gt(magicLinkTokens.expiresAt, now))),
    db.insert(magicLinkTokens).values(row),
  ]);
}

/** An unused, unexpired link, or null. */
export async function findLiveMagicLink(db: Db, tokenHash: string, now: Date): Promise<MagicLinkRow | null> {
  return (await liveByHash(db).get({ tokenHash, nowMs: now.getTime() })) ?? null;
}

/**
 * The atomic verify: marks an unused, unexpired link used — and refused when
 * `refused` (a wrong number: spent, and the poll never issues a session).
 * Returns false when another verify got there first or the link expired.
 */
export async function settleMagicLink(db: Db, id: string, now: Date, refused: boolean): Promise<boolean> {
  const res = await (refused ? refuse : accept)(db).run({ id, nowMs: now.getTime() });
  return res.rowsAffected === 1;
}

export async function findMagicLinkByHash(db: Db, tokenHash: string): Promise<MagicLinkRow | null> {
  return (await byHash(db).get({ tokenHash })) ?? null;
}

export async function newestLiveMagicLink(db: Db, userId: string, now: Date): Promise<MagicLinkRow | null> {
  return (await newestLive(db).get({ userId, nowMs: now.getTime() })) ?? null;
}

/** The atomic claim of the poll (one session per link): exactly one caller gets 1. */
export async function claimMagicLinkSession(db: Db, id: string, now: Date): Promise<number> {
  const res = await claimSession(db).run({ id, nowMs: now.getTime() });
  return res.rowsAffected;
}
