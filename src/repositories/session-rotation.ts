/**
 * The writes of a refresh rotation (contract §3.8, with its keyed retry),
 * rendered once per database and bound per refresh (src/db/driver/prepared-batch.ts).
 * Each rotation is one batch — one transaction on a libSQL file, sqld and D1
 * alike — whose statements are conditional on each other, so two racing
 * requests, in one process or two, can never both rotate the same row.
 * No business rules here: the service decides what a result means.
 */
import { sql, type SQL } from 'drizzle-orm';
import { batchWrites, preparedStatement } from '../db/driver/prepared-batch.js';
import type { Db } from '../db/client.js';
import { prepared } from '../db/driver/prepared.js';

const p = sql.placeholder;

/** What a rotation reads back from the row it inserted: the token is signed from it. */
export interface SuccessorRow {
  organization_id: string | null;
  step_up_verified_at: unknown;
  step_up_method: string | null;
  auth_time: unknown;
  auth_method: string | null;
}

/**
 * The claim: the presented row points at its successor, only if nobody claimed or revoked it first.
 * It records the hash of the request's `Idempotency-Key` (or null): only a replay with that key may retry.
 */
const claim = prepared((db) =>
  preparedStatement(
    db,
    sql`UPDATE sessions SET replaced_by_session_id = ${p('newId')}, refresh_idempotency_key_hash = ${p('keyHash')}, last_used_at = ${p('nowMs')}, updated_at = ${p('nowMs')}
      WHERE id = ${p('presentedId')} AND replaced_by_session_id IS NULL AND revoked_at IS NULL`,
  ),
);
/**
 * The successor row, copied from the presented row `s` in the same chain, with
 * the active organization (kept only while the user is still a member) and the
 * step-up state taken from `from` (`s` itself, or on a retry the retired successor `n`).
 */
const successorInsert = (from: 's' | 'n', source: SQL) => {
  const f = sql.raw(from);
  return sql`INSERT INTO sessions (id, user_id, chain_id, infra_id, organization_id, mode, refresh_token_hash, refresh_token_lookup,
      user_agent, ip_address, place, expires_at, idle_expires_at, step_up_verified_at, step_up_method, auth_time, auth_method, created_at, updated_at)
    SELECT ${p('newId')}, s.user_id, s.chain_id, s.infra_id,
      CASE WHEN EXISTS (SELECT 1 FROM organization_memberships m WHERE m.organization_id = ${f}.organization_id AND m.user_id = s.user_id)
        THEN ${f}.organization_id ELSE NULL END,
      s.mode, ${p('newHash')}, ${p('newLookup')}, ${p('userAgent')}, ${p('ip')}, ${p('place')}, s.expires_at, MIN(${p('idleCandidateMs')}, s.expires_at),
      ${f}.step_up_verified_at, ${f}.step_up_method, s.auth_time, s.auth_method, ${p('nowMs')}, ${p('nowMs')}
    ${source}
    RETURNING organization_id, step_up_verified_at, step_up_method, auth_time, auth_method`;
};
/** The successor, only if this batch's claim won. */
const successor = prepared((db) =>
  preparedStatement(
    db,
    successorInsert(
      's',
      sql`FROM sessions s WHERE s.id = ${p('presentedId')} AND s.replaced_by_session_id = ${p('newId')}`,
    ),
  ),
);
/** Retry (1): the unused successor is retired, only if it is still unused and live. */
const supersede = prepared((db) =>
  preparedStatement(
    db,
    sql`UPDATE sessions SET replaced_by_session_id = ${p('newId')}, revoked_at = ${p('nowMs')}, revoked_reason = 'refresh_retry_superseded', updated_at = ${p('nowMs')}
      WHERE id = ${p('successorId')} AND replaced_by_session_id IS NULL AND revoked_at IS NULL`,
  ),
);
/** Retry (2): the presented row is repointed, only if (1) happened. */
const repoint = prepared((db) =>
  preparedStatement(
    db,
    sql`UPDATE sessions SET replaced_by_session_id = ${p('newId')}, updated_at = ${p('nowMs')}
      WHERE id = ${p('presentedId')} AND replaced_by_session_id = ${p('successorId')} AND revoked_at IS NULL
        AND EXISTS (SELECT 1 FROM sessions n WHERE n.id = ${p('successorId')} AND n.replaced_by_session_id = ${p('newId')})`,
  ),
);
/** Retry (3): the new row, only if (2) happened. */
const retrySuccessor = prepared((db) =>
  preparedStatement(
    db,
    successorInsert(
      'n',
      sql`FROM sessions s JOIN sessions n ON n.id = ${p('successorId')} WHERE s.id = ${p('presentedId')} AND s.replaced_by_session_id = ${p('newId')}`,
    ),
  ),
);

export type Rotation = {
  presentedId: string;
  newId: string;
  newHash: string;
  newLookup: string;
  userAgent: string | null;
  ip: string | null;
  /** The refreshing request's coarse place (trusted sources only), like its User-Agent and address. */
  place: string | null;
  idleCandidateMs: number;
  nowMs: number;
  /** Hex SHA-256 of the request's `Idempotency-Key`, or null. */
  keyHash: string | null;
};

/** `claimed` is false when a concurrent rotation won (nothing was written); else the inserted successor's row. */
export async function rotateSession(
  db: Db,
  r: Rotation,
): Promise<{ claimed: boolean; successor: SuccessorRow | undefined }> {
  const claimWrite = claim(db);
  const [claimed, inserted] = await batchWrites(claimWrite.client, [claimWrite.bind(r), successor(db).bind(r)]);
  return { claimed: claimed!.rowsAffected === 1, successor: inserted!.rows[0] as unknown as SuccessorRow | undefined };
}

/** Retry-safe rotation: resolves to `undefined` when the successor was already used (no write happened). */
export async function rotateRetry(
  db: Db,
  r: Rotation & { successorId: string },
): Promise<{ successor: SuccessorRow | undefined } | undefined> {
  const first = supersede(db);
  const [, repointed, inserted] = await batchWrites(first.client, [
    first.bind(r),
    repoint(db).bind(r),
    retrySuccessor(db).bind(r),
  ]);
  if (repointed!.rowsAffected !== 1) return undefined;
  return { successor: inserted!.rows[0] as unknown as SuccessorRow | undefined };
}
