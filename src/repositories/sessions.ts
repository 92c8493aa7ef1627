/** Drizzle queries on `sessions`. No business rules here. */
import { and, desc, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { fastGet, type BatchRead } from '../db/driver/fast-get.js';
import { preparedWrite } from '../db/driver/prepared-batch.js';
import { prepared } from '../db/driver/prepared.js';
import { sessions, users, type SessionRow, type UserRow } from '../db/schema.js';

// Per-request reads are prepared once per database (src/db/driver/prepared.ts); timestamps bind as epoch ms.
const byId = prepared((db) =>
  db
    .select()
    .from(sessions)
    .where(eq(sessions.id, sql.placeholder('id')))
    .prepare(),
);
// `.limit(1)` on a unique key changes no answer; it tells the embedded client the statement
// returns one row at most, which it then reads in one native call (src/db/driver/embedded-connection.ts).
// The access check runs on every authenticated request: its row is mapped by fastGet (src/db/driver/fast-get.ts).
const withUserById = prepared((db) =>
  fastGet(
    db
      .select({ session: sessions, user: users })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(eq(sessions.id, sql.placeholder('id')))
      .limit(1)
      .prepare(),
  ),
);
const withUserByLookup = prepared((db) =>
  fastGet(
    db
      .select({ session: sessions, user: users })
      .from(sessions)
      .leftJoin(users, eq(users.id, sessions.userId))
      .where(eq(sessions.refreshTokenLookup, sql.placeholder('lookup')))
      .limit(1)
      .prepare(),
  ),
);
/**
 * The new session row of an issuance, prepared once and bound per sign-in
 * (src/db/driver/prepared-batch.ts), for the issuance's one batch. Every timestamp is
 * a non-null `Date`: a placeholder runs its column's encoder.
 */
export const sessionInsert = prepared((db) =>
  preparedWrite(
    db
      .insert(sessions)
      .values({
        id: sql.placeholder('id'),
        userId: sql.placeholder('userId'),
        chainId: sql.placeholder('id'),
        infraId: sql.placeholder('infraId'),
        organizationId: sql.placeholder('organizationId'),
        mode: 'server',
        refreshTokenHash: sql.placeholder('refreshTokenHash'),
        refreshTokenLookup: sql.placeholder('refreshTokenLookup'),
        userAgent: sql.placeholder('userAgent'),
        ipAddress: sql.placeholder('ipAddress'),
        place: sql.placeholder('place'),
        expiresAt: sql.placeholder('expiresAt'),
        idleExpiresAt: sql.placeholder('idleExpiresAt'),
        authTime: sql.placeholder('now'),
        authMethod: sql.placeholder('authMethod'),
        createdAt: sql.placeholder('now'),
        updatedAt: sql.placeholder('now'),
      })
      .prepare(),
  ),
);
const activeOfUser = prepared((db) =>
  db
    .select()
    .from(sessions)
    .where(
      and(
        eq(sessions.userId, sql.placeholder('userId')),
        isNull(sessions.revokedAt),
        isNull(sessions.replacedBySessionId),
        gt(sessions.expiresAt, sql.placeholder('nowMs')),
        gt(sessions.idleExpiresAt, sql.placeholder('nowMs')),
      ),
    )
    .orderBy(desc(sessions.createdAt), desc(sessions.id))
    .prepare(),
);

export async function findSessionById(db: Db, id: string): Promise<SessionRow | null> {
  return (await byId(db).get({ id })) ?? null;
}

/** Session and its owner in one indexed lookup (the access-credential check). */
export async function findSessionWithUser(
  db: Db,
  sessionId: string,
): Promise<{ session: SessionRow; user: UserRow } | null> {
  return (await withUserById(db).get({ id: sessionId })) ?? null;
}

/** `findSessionWithUser` as one read of a batch (src/db/driver/read-together.ts); undefined when absent. */
export function sessionWithUserRead(
  db: Db,
  sessionId: string,
): BatchRead<{ session: SessionRow; user: UserRow } | undefined> {
  return withUserById(db).read({ id: sessionId });
}

/** The refresh lookup: one unique-index probe, with the owner joined in. */
export async function findSessionByLookup(
  db: Db,
  lookup: string,
): Promise<{ session: SessionRow; user: UserRow | null } | null> {
  return (await withUserByLookup(db).get({ lookup })) ?? null;
}

/** Active = not revoked, not replaced, not expired (absolute or idle). */
export const activeSessionWhere = (nowMs: number) =>
  and(
    isNull(sessions.revokedAt),
    isNull(sessions.replacedBySessionId),
    gt(sessions.expiresAt, new Date(nowMs)),
    gt(sessions.idleExpiresAt, new Date(nowMs)),
  );

/** Newest first; the id breaks same-millisecond ties so the order is stable between calls. */
export async function listActiveSessions(db: Db, userId: string, nowMs: number): Promise<SessionRow[]> {
  return activeOfUser(db).all({ userId, nowMs });
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
export async function revokeUserSessions(
  db: Db,
  userId: string,
  reason: string,
  nowMs: number,
  keepChainId?: string,
): Promise<number> {
  const set = { revokedAt: new Date(nowMs), revokedReason: reason, updatedAt: new Date(nowMs) };
  const keep = keepChainId ? ne(sessions.chainId, keepChainId) : sql`1 = 1`;
  const [active] = await db.batch([
    db
      .update(sessions)
      .set(set)
      .where(and(eq(sessions.userId, userId), activeSessionWhere(nowMs), keep)),
    db
      .update(sessions)
      .set(set)
      .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), keep)),
  ]);
  return active.rowsAffected;
}
