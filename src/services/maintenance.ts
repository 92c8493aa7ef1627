/**
 * `runMaintenance(now)` deletes expired rows (contract §2). It runs from a
 * cron (Workers `scheduled`) or, at most once per minute, after a request.
 *
 * Deletes go in bounded batches (`batchRows` rows per statement, each its own
 * short write): a purge of a million expired sessions must not hold the write
 * lock for seconds while sign-ins wait. A run stops after `maxBatchesPerRun`
 * batches per table and leaves the rest to the next run.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client.js';
import { OAUTH_SERVER_OFF } from '../config/oauth-server.js';
import {
  authFailures,
  lockouts,
  contactChanges,
  magicLinkTokens,
  oauthClients,
  oauthAuthorizationRequests,
  oauthCodes,
  oauthConsumedStates,
  otpCodes,
  rateLimitCounters,
  sessions,
  systemConfig,
  totpCredentials,
  webauthnChallenges,
  webhookDeliveries,
} from '../db/schema.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface MaintenanceOptions {
  /** Rows per DELETE statement. */
  batchRows?: number;
  /** DELETE statements per table per run. */
  maxBatchesPerRun?: number;
}

/** What each table keeps: the WHERE of its expired rows (indexed: test/api/db/query-plans.test.ts). */
function expiredRows(nowMs: number): [SQLiteTable, SQL][] {
  return [
    [sessions, sql`${sessions.expiresAt} < ${nowMs - 30 * DAY}`],
    [
      totpCredentials,
      sql`${totpCredentials.enabled} = 0 AND ${totpCredentials.verifiedAt} IS NULL AND ${totpCredentials.createdAt} < ${nowMs - HOUR}`,
    ],
    [webauthnChallenges, sql`${webauthnChallenges.expiresAt} < ${nowMs - HOUR}`],
    [magicLinkTokens, sql`${magicLinkTokens.expiresAt} < ${nowMs - DAY}`],
    [otpCodes, sql`${otpCodes.expiresAt} < ${nowMs}`],
    [authFailures, sql`${authFailures.occurredAt} < ${nowMs - 7 * DAY}`],
    [lockouts, sql`${lockouts.lockedUntil} < ${nowMs}`],
    [rateLimitCounters, sql`${rateLimitCounters.expiresAt} < ${nowMs}`],
    [oauthConsumedStates, sql`${oauthConsumedStates.expiresAt} < ${nowMs}`],
    // Past the code (5 min) and the report window (7 days); kept a while for support questions.
    [contactChanges, sql`${contactChanges.createdAt} < ${nowMs - 30 * DAY}`],
    // Finished deliveries, 30 days after they finished (settling stamps `next_attempt_at` with the finish time), so an
    // admin has a month to look at or resend a failed one. Never `pending`: due, leased or resent rows are the outbox.
    [
      webhookDeliveries,
      sql`${webhookDeliveries.status} IN ('succeeded', 'failed') AND ${webhookDeliveries.nextAttemptAt} < ${nowMs - 30 * DAY}`,
    ],
    // Dynamically registered OAuth clients with no token request for `oauth_server.dynamicRegistration.unusedExpiryDays`
    // (since their last use, or their registration when never used). Read from the config row in SQL so the purge
    // needs no config service; their consents, grants and tokens go with them (ON DELETE CASCADE).
    [
      oauthClients,
      sql`${oauthClients.registration} = 'dynamic' AND COALESCE(${oauthClients.lastUsedAt}, ${oauthClients.createdAt}) < ${nowMs} - ${DAY} * COALESCE((SELECT json_extract(${systemConfig.value}, '$.dynamicRegistration.unusedExpiryDays') FROM ${systemConfig} WHERE ${systemConfig.key} = 'oauth_server'), ${OAUTH_SERVER_OFF.dynamicRegistration.unusedExpiryDays})`,
    ],
    // The OAuth provider: authorization requests past their 10 minutes; codes a day past their 60 s (a replay
    // within that day still finds the spent code and revokes its grant).
    [oauthAuthorizationRequests, sql`${oauthAuthorizationRequests.expiresAt} < ${nowMs}`],
    [oauthCodes, sql`${oauthCodes.expiresAt} < ${nowMs - DAY}`],
  ];
}

/** Rows a write changed, on libSQL (`rowsAffected`) and D1 (`meta.changes`). */
function changed(result: unknown): number {
  const r = result as { rowsAffected?: number; meta?: { changes?: number } };
  return Number(r.rowsAffected ?? r.meta?.changes ?? 0);
}

/** Deletes expired rows; resolves to the number of rows deleted. */
export async function runMaintenance(db: Db, nowMs: number, opts: MaintenanceOptions = {}): Promise<number> {
  const batchRows = opts.batchRows ?? 500;
  const maxBatches = opts.maxBatchesPerRun ?? 20;
  let total = 0;
  for (const [table, where] of expiredRows(nowMs)) {
    for (let i = 0; i < maxBatches; i++) {
      const n = changed(
        await db.run(
          sql`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${where} LIMIT ${batchRows})`,
        ),
      );
      total += n;
      if (n < batchRows) break;
    }
  }
  return total;
}

/** Returns a trigger that runs maintenance at most once per `intervalMs`. */
export function createMaintenanceTrigger(db: Db, intervalMs = 60_000) {
  let lastRunMs = -Infinity;
  return (nowMs: number): Promise<number> | null => {
    if (nowMs - lastRunMs < intervalMs) return null;
    lastRunMs = nowMs;
    return runMaintenance(db, nowMs);
  };
}
