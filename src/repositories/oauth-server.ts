/**
 * Drizzle queries on the provider's flow tables (docs/oauth-provider.md):
 * authorization requests, consents, grants, codes and refresh tokens. No
 * business rules here; the single-use steps are one conditional statement
 * (or one batch) each, so two concurrent callers cannot both win.
 */
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import {
  oauthAuthorizationRequests,
  oauthCodes,
  oauthConsents,
  oauthGrants,
  oauthRefreshTokens,
  sessions,
  users,
  type OAuthAuthorizationRequestRow,
  type OAuthCodeRow,
  type OAuthConsentRow,
  type OAuthGrantRow,
  type OAuthRefreshTokenRow,
} from '../db/schema.js';

export async function insertAuthorizationRequest(db: Db, row: OAuthAuthorizationRequestRow): Promise<void> {
  await db.insert(oauthAuthorizationRequests).values(row);
}

export async function findAuthorizationRequest(db: Db, id: string): Promise<OAuthAuthorizationRequestRow | null> {
  const [row] = await db
    .select()
    .from(oauthAuthorizationRequests)
    .where(eq(oauthAuthorizationRequests.id, id))
    .limit(1);
  return row ?? null;
}

/** Single use: deletes the request only if it is still there and unexpired; true for the one caller that did. */
export async function takeAuthorizationRequest(db: Db, id: string, now: Date): Promise<boolean> {
  const gone = await db
    .delete(oauthAuthorizationRequests)
    .where(and(eq(oauthAuthorizationRequests.id, id), gt(oauthAuthorizationRequests.expiresAt, now)))
    .returning({ id: oauthAuthorizationRequests.id });
  return gone.length === 1;
}

export async function findConsent(db: Db, userId: string, clientId: string): Promise<OAuthConsentRow | null> {
  const [row] = await db
    .select()
    .from(oauthConsents)
    .where(and(eq(oauthConsents.userId, userId), eq(oauthConsents.clientId, clientId)))
    .limit(1);
  return row ?? null;
}

export async function saveConsent(
  db: Db,
  row: { userId: string; clientId: string; scope: string; resources: string[] | null; now: Date },
): Promise<void> {
  await db
    .insert(oauthConsents)
    .values({
      userId: row.userId,
      clientId: row.clientId,
      scope: row.scope,
      resources: row.resources,
      createdAt: row.now,
      updatedAt: row.now,
    })
    .onConflictDoUpdate({
      target: [oauthConsents.userId, oauthConsents.clientId],
      set: { scope: row.scope, resources: row.resources, updatedAt: row.now },
    });
}

/** A new grant and its code, together or not at all. */
export async function insertGrantWithCode(db: Db, grant: OAuthGrantRow, code: OAuthCodeRow): Promise<void> {
  await db.batch([db.insert(oauthGrants).values(grant), db.insert(oauthCodes).values(code)]);
}

export async function findCode(db: Db, codeHash: string): Promise<{ code: OAuthCodeRow; grant: OAuthGrantRow } | null> {
  const [row] = await db
    .select({ code: oauthCodes, grant: oauthGrants })
    .from(oauthCodes)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthCodes.grantId))
    .where(eq(oauthCodes.codeHash, codeHash))
    .limit(1);
  return row ?? null;
}

export interface NewRefreshToken {
  id: string;
  grantId: string;
  tokenHash: string;
  expiresAt: Date;
}

/**
 * Redeems a code: one batch that inserts the first refresh token (when there is
 * one) only while the code is unused, then marks it used. The batch is one
 * transaction, so of two concurrent redemptions exactly one sees the code
 * unused; true for that one.
 */
export async function redeemCode(
  db: Db,
  codeHash: string,
  refresh: NewRefreshToken | null,
  now: Date,
): Promise<boolean> {
  const nowMs = now.getTime();
  const mark = db
    .update(oauthCodes)
    .set({ usedAt: now })
    .where(and(eq(oauthCodes.codeHash, codeHash), isNull(oauthCodes.usedAt)))
    .returning({ codeHash: oauthCodes.codeHash });
  if (!refresh) {
    const rows = await mark;
    return rows.length === 1;
  }
  const [, marked] = await db.batch([
    db.run(sql`INSERT INTO oauth_refresh_tokens (id, grant_id, token_hash, created_at, expires_at)
      SELECT ${refresh.id}, ${refresh.grantId}, ${refresh.tokenHash}, ${nowMs}, ${refresh.expiresAt.getTime()}
      WHERE EXISTS (SELECT 1 FROM oauth_codes WHERE code_hash = ${codeHash} AND used_at IS NULL)`),
    mark,
  ]);
  return marked.length === 1;
}

export async function findRefreshToken(
  db: Db,
  tokenHash: string,
): Promise<{ token: OAuthRefreshTokenRow; grant: OAuthGrantRow } | null> {
  const [row] = await db
    .select({ token: oauthRefreshTokens, grant: oauthGrants })
    .from(oauthRefreshTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthRefreshTokens.grantId))
    .where(eq(oauthRefreshTokens.tokenHash, tokenHash))
    .limit(1);
  return row ?? null;
}

/** Rotation in one batch: the successor is inserted only while the presented token is unused; true for the winner. */
export async function rotateRefreshToken(db: Db, oldId: string, next: NewRefreshToken, now: Date): Promise<boolean> {
  const [, marked] = await db.batch([
    db.run(sql`INSERT INTO oauth_refresh_tokens (id, grant_id, token_hash, created_at, expires_at)
      SELECT ${next.id}, ${next.grantId}, ${next.tokenHash}, ${now.getTime()}, ${next.expiresAt.getTime()}
      WHERE EXISTS (SELECT 1 FROM oauth_refresh_tokens WHERE id = ${oldId} AND used_at IS NULL)`),
    db
      .update(oauthRefreshTokens)
      .set({ usedAt: now })
      .where(and(eq(oauthRefreshTokens.id, oldId), isNull(oauthRefreshTokens.usedAt)))
      .returning({ id: oauthRefreshTokens.id }),
  ]);
  return marked.length === 1;
}

export async function findGrant(db: Db, id: string): Promise<OAuthGrantRow | null> {
  const [row] = await db.select().from(oauthGrants).where(eq(oauthGrants.id, id)).limit(1);
  return row ?? null;
}

/** Ends a grant once: its refresh tokens stop working and its access tokens introspect inactive. True if it was live. */
export async function revokeGrant(db: Db, id: string, reason: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(oauthGrants)
    .set({ revokedAt: now, revokedReason: reason })
    .where(and(eq(oauthGrants.id, id), isNull(oauthGrants.revokedAt)))
    .returning({ id: oauthGrants.id });
  return rows.length === 1;
}

/**
 * Whether the svc sign-in a grant came from is still alive: some row of its
 * session's chain (refresh rotation moves `sid` along the chain) is neither
 * revoked, rotated away nor expired. Logout and session revocation revoke the
 * whole chain, so they end it.
 */
export async function sessionChainAlive(db: Db, sessionId: string, now: Date): Promise<boolean> {
  const nowMs = now.getTime();
  const rows = await db.all<{ one: number }>(sql`SELECT 1 AS one FROM ${sessions} s
    JOIN ${sessions} origin ON origin.chain_id = s.chain_id
    WHERE origin.id = ${sessionId} AND s.revoked_at IS NULL AND s.replaced_by_session_id IS NULL
      AND s.expires_at > ${nowMs} AND s.idle_expires_at > ${nowMs}
    LIMIT 1`);
  return rows.length > 0;
}

/** The chain a session row belongs to (null when the row is gone). */
export async function sessionChainId(db: Db, sessionId: string): Promise<string | null> {
  const [row] = await db.select({ chainId: sessions.chainId }).from(sessions).where(eq(sessions.id, sessionId));
  return row?.chainId ?? null;
}

export async function findLiveUser(db: Db, userId: string) {
  const [row] = await db.select().from(users).where(eq(users.id, userId)).limit(1);
  return row && !row.revoked ? row : null;
}
