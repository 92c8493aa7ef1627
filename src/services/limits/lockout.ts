/**
 * Account lockout (contract §3.18). Failures are keyed by principal subject (a
 * user id or a decoy subject), so decoys lock exactly like real accounts.
 */
import { and, count, eq, gte, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { LockoutPolicy } from '../../config/keys.js';
import type { Db } from '../../db/client.js';
import { prepared } from '../../db/driver/prepared.js';
import { authFailures, lockouts } from '../../db/schema.js';
import { fail } from '../../errors.js';
import type { AuthEvents, AuthEventInput } from '../events/auth-events.js';

export const COUNTED_FAILURES = [
  'login_failed',
  'webauthn_login_failed',
  'verify_otp_failed',
  'totp_failed',
  'magic_link_failed',
  // A wrong recovery code is a wrong second factor (docs/recovery-codes.md).
  'recovery_code_failed',
] as const;
export type CountedFailure = (typeof COUNTED_FAILURES)[number];

export interface Lockout {
  /** Seconds until the lock ends, or 0 when not locked. */
  retryAfterSeconds(subject: string, policy: LockoutPolicy): Promise<number>;
  /**
   * Throws 423 `account_locked` when locked and writes `login_suspicious`.
   * Runs before any verification so nothing is counted while the lock holds.
   */
  assertNotLocked(subject: string, policy: LockoutPolicy, event: Omit<AuthEventInput, 'type'>): Promise<void>;
  /** Writes the failure row and starts a lock when the policy maximum is reached. */
  recordFailure(
    subject: string,
    type: CountedFailure,
    policy: LockoutPolicy,
    event: Omit<AuthEventInput, 'type'>,
  ): Promise<void>;
}

/** The lock check runs on every /login and code or passkey verify: prepared once. */
const lockOf = prepared((db) =>
  db
    .select({ lockedUntil: lockouts.lockedUntil })
    .from(lockouts)
    .where(eq(lockouts.subject, sql.placeholder('subject')))
    .prepare(),
);

export function createLockout(db: Db, clock: Clock, events: AuthEvents): Lockout {
  async function lockedUntil(subject: string): Promise<number> {
    const row = await lockOf(db).get({ subject });
    return row ? row.lockedUntil.getTime() : 0;
  }

  return {
    async retryAfterSeconds(subject, policy) {
      if (!policy.enabled) return 0;
      const until = await lockedUntil(subject);
      const now = clock.now();
      return until > now ? Math.ceil((until - now) / 1000) : 0;
    },

    async assertNotLocked(subject, policy, event) {
      const retryAfterSeconds = await this.retryAfterSeconds(subject, policy);
      if (retryAfterSeconds > 0) {
        await events.record({
          ...event,
          type: 'login_suspicious',
          metadata: { ...(event.metadata ?? {}), reason: 'locked' },
        });
        throw fail('account_locked', undefined, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
      }
    },

    async recordFailure(subject, type, policy, event) {
      const now = clock.now();
      await db.insert(authFailures).values({ subject, type, occurredAt: new Date(now) });
      if (!policy.enabled) return;
      const previousLock = await lockedUntil(subject);
      const since = Math.max(now - policy.windowSeconds * 1000, previousLock);
      const [row] = await db
        .select({ n: count() })
        .from(authFailures)
        .where(and(eq(authFailures.subject, subject), gte(authFailures.occurredAt, new Date(since))));
      const failures = row?.n ?? 0;
      if (failures < policy.maxFailures) return;
      const until = new Date(now + policy.lockoutSeconds * 1000);
      await db
        .insert(lockouts)
        .values({ subject, lockedAt: new Date(now), lockedUntil: until, failureCount: failures })
        .onConflictDoUpdate({
          target: lockouts.subject,
          set: { lockedAt: new Date(now), lockedUntil: until, failureCount: sql`excluded.failure_count` },
        });
      await events.record({
        ...event,
        type: 'account_locked',
        metadata: { ...(event.metadata ?? {}), failures, lockoutSeconds: policy.lockoutSeconds },
      });
    },
  };
}
