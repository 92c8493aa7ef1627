/**
 * Retry-safe rotation (keyed, contract §3.8): a refresh token
 * presented again shortly after its own rotation, with the same
 * `Idempotency-Key` as the refresh that rotated it, while its successor has
 * never been presented, is the same client retrying an answer lost to a crash
 * or a dropped connection. It gets a fresh rotation and the unused successor
 * is retired, instead of the whole chain being revoked. Without the key the
 * replay is reuse (contract §3.8): a token stolen and replayed within the
 * window no longer takes the session over. One batch decides, so two
 * instances can never both win (`rotateRetry` in src/repositories/session-rotation.ts).
 */
import { timingSafeEqual } from '../../../common/encoding.js';
import { sha256Hex } from '../../crypto/hash.js';
import type { SessionRow } from '../../db/schema.js';
import type { SuccessorRow } from '../../repositories/session-rotation.js';
import { msToDate, type SessionAuth } from './auth-context.js';

export function successorAuth(row: SuccessorRow | undefined): SessionAuth {
  return {
    authTime: msToDate(row?.auth_time),
    authMethod: row?.auth_method ?? null,
    stepUpVerifiedAt: msToDate(row?.step_up_verified_at),
    stepUpMethod: row?.step_up_method ?? null,
  };
}

/** What is stored for a key: its hex SHA-256 (the key is as secret as the token for the window). */
export const idempotencyKeyHash = (key: string | null): string | null => (key === null ? null : sha256Hex(key));

/**
 * A replay of the rotated `session` is a retry only with the key its rotation
 * stored (compared in constant time), within `refresh_reuse_grace_seconds` of
 * that rotation; 0 turns retries off. The successor's being unused is decided
 * by the write itself.
 */
export function isKeyedRetry(
  session: SessionRow,
  keyHash: string | null,
  nowMs: number,
  graceSeconds: number,
): boolean {
  const rotatedAt = session.lastUsedAt?.getTime();
  const stored = session.refreshIdempotencyKeyHash;
  if (graceSeconds <= 0 || session.revokedAt || rotatedAt === undefined || nowMs - rotatedAt > graceSeconds * 1000)
    return false;
  return stored !== null && keyHash !== null && timingSafeEqual(stored, keyHash);
}
