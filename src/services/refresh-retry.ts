/**
 * Retry-safe rotation (issue #16): a refresh token presented again shortly
 * after its own rotation, while its successor has never been presented, is
 * most likely an answer lost to a crash or a dropped connection, not theft.
 * It gets a fresh rotation and the unused successor is retired, instead of the
 * whole chain being revoked. One batch decides, so two instances can never
 * both win (`rotateRetry` in src/repositories/session-rotation.ts).
 */
import type { SessionRow } from '../db/schema.js';
import type { SuccessorRow } from '../repositories/session-rotation.js';
import { msToDate, type SessionAuth } from './auth-context.js';

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
