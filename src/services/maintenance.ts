/**
 * `runMaintenance(now)` deletes expired rows (contract §2). It runs from a
 * cron (Workers `scheduled`) or, at most once per minute, after a request.
 */
import { and, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import {
  authFailures,
  lockouts,
  magicLinkTokens,
  oauthConsumedStates,
  otpCodes,
  rateLimitCounters,
  sessions,
  totpCredentials,
  webauthnChallenges,
} from '../db/schema.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export async function runMaintenance(db: Db, nowMs: number): Promise<void> {
  const at = (ms: number) => new Date(ms);
  await db.batch([
    db.delete(sessions).where(lt(sessions.expiresAt, at(nowMs - 30 * DAY))),
    db.delete(totpCredentials).where(and(sql`${totpCredentials.enabled} = 0`, isNull(totpCredentials.verifiedAt), lt(totpCredentials.createdAt, at(nowMs - HOUR)))),
    db.delete(webauthnChallenges).where(lt(webauthnChallenges.expiresAt, at(nowMs - HOUR))),
    db.delete(magicLinkTokens).where(lt(magicLinkTokens.expiresAt, at(nowMs - DAY))),
    db.delete(otpCodes).where(lt(otpCodes.expiresAt, at(nowMs))),
    db.delete(authFailures).where(lt(authFailures.occurredAt, at(nowMs - 7 * DAY))),
    db.delete(lockouts).where(lt(lockouts.lockedUntil, at(nowMs))),
    db.delete(rateLimitCounters).where(lt(rateLimitCounters.expiresAt, nowMs)),
    db.delete(oauthConsumedStates).where(lt(oauthConsumedStates.expiresAt, at(nowMs))),
  ]);
}

/** Returns a trigger that runs maintenance at most once per `intervalMs`. */
export function createMaintenanceTrigger(db: Db, intervalMs = 60_000) {
  let lastRunMs = -Infinity;
  return (nowMs: number): Promise<void> | null => {
    if (nowMs - lastRunMs < intervalMs) return null;
    lastRunMs = nowMs;
    return runMaintenance(db, nowMs);
  };
}
