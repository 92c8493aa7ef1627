/**
 * Retry-safe rotation (issue #16): a refresh token presented again shortly
 * after its own rotation, while its successor has never been presented, is
 * most likely an answer lost to a crash or a dropped connection, not theft.
 * It gets a fresh rotation and the unused successor is retired, instead of the
 * whole chain being revoked. One batch decides, so two instances can never
 * both win: (1) the unused successor is marked replaced + revoked only if it
 * is still unused and live, (2) the presented row is repointed only if (1)
 * happened, (3) the new row is inserted only if (2) happened.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import type { SessionRow } from '../db/schema.js';
import { msToDate, type SessionAuth } from './auth-context.js';

/** What a rotation reads back from the row it inserted: the token is signed from it. */
export interface SuccessorRow {
  organization_id: string | null;
  step_up_verified_at: unknown;
  step_up_method: string | null;
  auth_time: unknown;
  auth_method: string | null;
}
export const SUCCESSOR_COLUMNS = sql.raw('organization_id, step_up_verified_at, step_up_method, auth_time, auth_method');

export function successorAuth(row: SuccessorRow | undefined): SessionAuth {
  return {
    authTime: msToDate(row?.auth_time),
    authMethod: row?.auth_method ?? null,
    stepUpVerifiedAt: msToDate(row?.step_up_verified_at),
    stepUpMethod: row?.step_up_method ?? null,
  };
}

/** `refresh_reuse_grace_seconds` = 0 turns this off (strict reuse detection, contract §3.8). */
export function withinRetryGrace(session: SessionRow, nowMs: number, graceSeconds: number): boolean {
  const rotatedAt = session.lastUsedAt?.getTime();
  return graceSeconds > 0 && !session.revokedAt && rotatedAt !== undefined && nowMs - rotatedAt <= graceSeconds * 1000;
}

export interface RetryRotation {
  presented: SessionRow;
  newId: string;
  newHash: string;
  newLookup: string;
  userAgent: string | null;
  ip: string | null;
  idleCandidateMs: number;
  nowMs: number;
}

/** Resolves to the new row's organization, or `undefined` when the successor was already used (no write happened). */
export async function rotateAgain(db: Db, r: RetryRotation): Promise<{ organizationId: string | null; auth: SessionAuth } | undefined> {
  const successorId = r.presented.replacedBySessionId!;
  const [, repoint, inserted] = await db.batch([
    db.run(sql`UPDATE sessions SET replaced_by_session_id = ${r.newId}, revoked_at = ${r.nowMs}, revoked_reason = 'refresh_retry_superseded', updated_at = ${r.nowMs}
      WHERE id = ${successorId} AND replaced_by_session_id IS NULL AND revoked_at IS NULL`),
    db.run(sql`UPDATE sessions SET replaced_by_session_id = ${r.newId}, updated_at = ${r.nowMs}
      WHERE id = ${r.presented.id} AND replaced_by_session_id = ${successorId} AND revoked_at IS NULL
        AND EXISTS (SELECT 1 FROM sessions n WHERE n.id = ${successorId} AND n.replaced_by_session_id = ${r.newId})`),
    db.all<SuccessorRow>(sql`INSERT INTO sessions (id, user_id, chain_id, infra_id, organization_id, mode, refresh_token_hash, refresh_token_lookup,
        user_agent, ip_address, expires_at, idle_expires_at, step_up_verified_at, step_up_method, auth_time, auth_method, created_at, updated_at)
      SELECT ${r.newId}, s.user_id, s.chain_id, s.infra_id,
        CASE WHEN EXISTS (SELECT 1 FROM organization_memberships m WHERE m.organization_id = n.organization_id AND m.user_id = s.user_id)
          THEN n.organization_id ELSE NULL END,
        s.mode, ${r.newHash}, ${r.newLookup}, ${r.userAgent}, ${r.ip}, s.expires_at, MIN(${r.idleCandidateMs}, s.expires_at),
        n.step_up_verified_at, n.step_up_method, s.auth_time, s.auth_method, ${r.nowMs}, ${r.nowMs}
      FROM sessions s JOIN sessions n ON n.id = ${successorId}
      WHERE s.id = ${r.presented.id} AND s.replaced_by_session_id = ${r.newId}
      RETURNING ${SUCCESSOR_COLUMNS}`),
  ]);
  if (repoint.rowsAffected !== 1) return undefined;
  return { organizationId: inserted[0]?.organization_id ?? null, auth: successorAuth(inserted[0]) };
}
