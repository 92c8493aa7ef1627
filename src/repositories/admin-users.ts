/** Drizzle queries behind the admin user routes (contract §3.15). No business rules here. */
import { and, count, desc, eq, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { authEvents, sessions, users, type UserRow } from '../db/schema.js';
import { activeSessionWhere } from './sessions.js';

/** Substring match on email or phone; `instr` so `%`/`_` in the search are literal. */
const searchWhere = (search: string | undefined) =>
  search
    ? or(
        sql`instr(${users.email}, ${search.toLowerCase()}) > 0`,
        sql`instr(coalesce(${users.phone}, ''), ${search}) > 0`,
      )
    : undefined;

export async function listUsers(
  db: Db,
  q: { limit: number; offset: number; search?: string },
): Promise<{ rows: UserRow[]; total: number }> {
  const where = searchWhere(q.search);
  const [rows, [totalRow]] = await Promise.all([
    db.select().from(users).where(where).orderBy(desc(users.createdAt), desc(users.id)).limit(q.limit).offset(q.offset),
    db.select({ n: count() }).from(users).where(where),
  ]);
  return { rows, total: totalRow?.n ?? 0 };
}

/**
 * Revokes every session of the user that is not yet revoked, including
 * rotated-away rows whose access tokens would otherwise live until expiry.
 * Returns how many *active* sessions were ended.
 */
export async function revokeAllUserSessions(db: Db, userId: string, reason: string, nowMs: number): Promise<number> {
  const set = { revokedAt: new Date(nowMs), revokedReason: reason, updatedAt: new Date(nowMs) };
  const [active] = await db.batch([
    db
      .update(sessions)
      .set(set)
      .where(and(eq(sessions.userId, userId), activeSessionWhere(nowMs))),
    db
      .update(sessions)
      .set(set)
      .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt))),
  ]);
  return active.rowsAffected;
}

export async function recentUserEvents(db: Db, userId: string, limit: number) {
  return db
    .select()
    .from(authEvents)
    .where(eq(authEvents.userId, userId))
    .orderBy(desc(authEvents.createdAt), desc(authEvents.id))
    .limit(limit);
}

export async function deleteUserRow(db: Db, userId: string): Promise<boolean> {
  const res = await db.delete(users).where(eq(users.id, userId));
  return res.rowsAffected > 0;
}
