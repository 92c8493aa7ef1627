/** Step-up freshness (contract §3.11). */
import { and, count, eq } from 'drizzle-orm';
import { toIso } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { credentials, sessions, totpCredentials, type SessionRow } from '../../db/schema.js';

export const STEP_UP_MAX_AGE_SECONDS = 300;

/** How a step-up was completed; `recovery_code` is docs/recovery-codes.md. */
export type StepUpMethod = 'webauthn' | 'totp' | 'recovery_code';

export interface StepUpStatus {
  fresh: boolean;
  method: StepUpMethod | null;
  verifiedAt: string | null;
  expiresAt: string | null;
  maxAgeSeconds: number;
}

export function stepUpStatus(
  session: Pick<SessionRow, 'stepUpVerifiedAt' | 'stepUpMethod'>,
  nowMs: number,
): StepUpStatus {
  const verified = session.stepUpVerifiedAt?.getTime() ?? null;
  const expires = verified === null ? null : verified + STEP_UP_MAX_AGE_SECONDS * 1000;
  return {
    fresh: expires !== null && expires > nowMs,
    method: (session.stepUpMethod as StepUpStatus['method']) ?? null,
    verifiedAt: toIso(verified),
    expiresAt: toIso(expires),
    maxAgeSeconds: STEP_UP_MAX_AGE_SECONDS,
  };
}

/** Marks the session fresh; returns the new status. */
export async function markStepUp(
  db: Db,
  sessionId: string,
  method: StepUpMethod,
  nowMs: number,
): Promise<StepUpStatus> {
  await db
    .update(sessions)
    .set({ stepUpVerifiedAt: new Date(nowMs), stepUpMethod: method, updatedAt: new Date(nowMs) })
    .where(eq(sessions.id, sessionId));
  return stepUpStatus({ stepUpVerifiedAt: new Date(nowMs), stepUpMethod: method }, nowMs);
}

/** A user with a passkey or an enabled TOTP credential is step-up-capable (contract §3.6). */
export async function isStepUpCapable(db: Db, userId: string): Promise<boolean> {
  const [p] = await db.select({ n: count() }).from(credentials).where(eq(credentials.userId, userId));
  if ((p?.n ?? 0) > 0) return true;
  const [t] = await db
    .select({ n: count() })
    .from(totpCredentials)
    .where(and(eq(totpCredentials.userId, userId), eq(totpCredentials.enabled, true)));
  return (t?.n ?? 0) > 0;
}
