/**
 * Admin device-replacement recovery (contract §3.15, §4.5):
 * for a user who lost every factor, revoke their sessions, delete their
 * passkeys and disable their TOTP in ONE batch, and record how identity was
 * proven. The answer carries counts only.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { credentials, recoveryCodes, sessions, totpCredentials } from '../../db/schema.js';
import type { Deps, RequestContext } from '../../deps.js';
import { fail } from '../../errors.js';
import { activeSessionWhere } from '../../repositories/sessions.js';
import { findUserById } from '../../repositories/users.js';

export interface Proofing {
  method: 'in_person' | 'remote_exception';
  evidenceRef: string;
  approver?: string;
}

export interface DeviceReplacementInput {
  targetUserId: string;
  actor: { userId: string; sessionId: string; client: RequestContext };
  revokeSessions: boolean;
  removePasskeys: boolean;
  disableTotp: boolean;
  proofing: Proofing;
}

export interface DeviceReplacementResult {
  userId: string;
  revokedSessions: number;
  removedCredentials: number;
  disabledTotpCredentials: number;
}

export const DEVICE_REPLACEMENT_REASON = 'admin_device_replacement';

type Statement = Parameters<Db['batch']>[0][number];

export async function replaceDevices(
  deps: Pick<Deps, 'db' | 'clock' | 'events'>,
  input: DeviceReplacementInput,
): Promise<DeviceReplacementResult> {
  const { db, clock, events } = deps;
  const target = await findUserById(db, input.targetUserId);
  if (!target) throw fail('not_found', 'User not found');
  const nowMs = clock.now();
  const now = new Date(nowMs);
  const revoke = { revokedAt: now, revokedReason: DEVICE_REPLACEMENT_REASON, updatedAt: now };

  // Each slot is a statement whose rowsAffected is a reported count, or null when its flag is off.
  const counted: (Statement | null)[] = [
    input.revokeSessions
      ? db
          .update(sessions)
          .set(revoke)
          .where(and(eq(sessions.userId, target.id), activeSessionWhere(nowMs)))
      : null,
    input.removePasskeys ? db.delete(credentials).where(eq(credentials.userId, target.id)) : null,
    input.disableTotp
      ? db
          .update(totpCredentials)
          .set({ enabled: false, updatedAt: now })
          .where(and(eq(totpCredentials.userId, target.id), eq(totpCredentials.enabled, true)))
      : null,
  ];
  const statements = counted.filter((s): s is Statement => s !== null);
  // Rotated-away sessions are not "active" (not counted), but their access tokens stay valid
  // until they expire; revoke them too so a thief's token dies with the recovery.
  if (input.revokeSessions)
    statements.push(
      db
        .update(sessions)
        .set(revoke)
        .where(and(eq(sessions.userId, target.id), isNull(sessions.revokedAt))),
    );

  // Recovery codes stand in for the factors removed here: void them too, or a stolen set would work
  // again once the user enrols a new authenticator (docs/recovery-codes.md). Last, so the counts above keep their slots.
  const voidCodes = input.removePasskeys || input.disableTotp;
  if (voidCodes) statements.push(db.delete(recoveryCodes).where(eq(recoveryCodes.userId, target.id)));

  const results = statements.length ? await db.batch(statements as [Statement, ...Statement[]]) : [];
  const voidedRecoveryCodes = voidCodes
    ? ((results[results.length - 1] as { rowsAffected?: number } | undefined)?.rowsAffected ?? 0)
    : 0;
  let i = 0;
  const [revokedSessions, removedCredentials, disabledTotpCredentials] = counted.map((s) =>
    s === null ? 0 : ((results[i++] as { rowsAffected?: number } | undefined)?.rowsAffected ?? 0),
  ) as [number, number, number];

  const result = { userId: target.id, revokedSessions, removedCredentials, disabledTotpCredentials };
  await events.record({
    type: 'admin_device_replacement_recovery',
    userId: target.id,
    actorUserId: input.actor.userId,
    sessionId: input.actor.sessionId,
    ipAddress: input.actor.client.ip,
    userAgent: input.actor.client.userAgent,
    metadata: {
      proofing: input.proofing,
      revokedSessions,
      removedCredentials,
      disabledTotpCredentials,
      voidedRecoveryCodes,
      options: {
        revokeSessions: input.revokeSessions,
        removePasskeys: input.removePasskeys,
        disableTotp: input.disableTotp,
      },
    },
  });
  return result;
}
