/** Drizzle queries on `sessions`. No business rules here. */
import { and, desc, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { sessions, users, type SessionRow, type UserRow } from '../db/schema.js';

export async function findSessionById(db: Db, id: string): Promise<SessionRow | null> {
  const [row] = await db.select().from(sessions).where(eq(sessions.id, id));
  return row ?? null;
}

/** Session and its owner in one indexed lookup (the access-credential check). */
export async function findSessionWithUser(db: Db, sessionId: string): Promise<{ session: SessionRow; user: UserRow } | null> {
  const [row] = await db.select({ session: sessions, user: users }).from(sessions).innerJoin(users, eq(users.id, sessions.userId)).where(eq(sessions.id, sessionId));
  return row ?? null;
}

/** The refresh lookup: one unique-index probe, with the owner joined in. */
export async function findSessionByLookup(db: Db, lookup: string): Promise<{ session: SessionRow; user: UserRow | null } | null> {
  const [row] = await db
    .select({ session: sessions, user: users })
    .from(sessions)
    .leftJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.refreshTokenLookup, lookup));
  return row ?? null;
}

/** Active = not revoked, not replaced, not expired (absolute or idle). */
export const activeSessionWhere = (nowMs: number) =>
  and(isNull(sessions.revokedAt), isNull(sessions.replacedBySessionId), gt(sessions.expiresAt, new Date(nowMs)), gt(sessions.idleExpiresAt, new Date(nowMs)));

/** Newest first; the id breaks same-millisecond ties so the order is stable between calls. */
export async function listActiveSessions(db: Db, userId: string, nowMs: number): Promise<SessionRow[]> {
  return db
    .select()
    .from(sessions)
    .where(and(eq(sessions.userId, userId), activeSessionWhere(nowMs)))
    .orderBy(desc(sessions.createdAt), desc(sessions.id));
}

export async function revokeSession(db: Db, id: string, reason: string, nowMs: number): Promise<number> {
  const res = await db
    .update(sessions)
    .set({ revokedAt: new Date(nowMs), revokedReason: reason, updatedAt: new Date(nowMs) })
    .where(and(eq(sessions.id, id), isNull(sessions.revokedAt)));
  return res.rowsAffected;
}

/** Revokes every not-yet-revoked session of a chain (reuse detection). */
export async function revokeChain(db: Db, chainId: string, reason: string, nowMs: number): Promise<number> {
  const res = await db
    .update(sessions)
    .set({ revokedAt: new Date(nowMs), revokedReason: reason, updatedAt: new Date(nowMs) })
    .where(and(eq(sessions.chainId, chainId), isNull(sessions.revokedAt)));
  return res.rowsAffected;
}

/**
 * Revokes every not-yet-revoked session of the user, optionally keeping one
 * sign-in chain. Rotated-away rows are revoked too: their access tokens stay
 * valid until expiry otherwise (contract §0.3). Returns how many *active*
 * sessions were ended.
 */
export async function revokeUserSessions(db: Db, userId: string, reason: string, nowMs: number, keepChainId?: string): Promise<number> {
  const set = { revokedAt: new Date(nowMs), revokedReason: reason, updatedAt: new Date(nowMs) };
  const keep = keepChainId ? ne(sessions.chainId, keepChainId) : sql`1 = 1`;
  const [active] = await db.batch([
    db.update(sessions).set(set).where(and(eq(sessions.userId, userId), activeSessionWhere(nowMs), keep)),
    db.update(sessions).set(set).where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), keep)),
  ]);
  return active.rowsAffected;
}
