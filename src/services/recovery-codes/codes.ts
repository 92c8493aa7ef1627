/**
 * Recovery codes (docs/recovery-codes.md): generating a set, and spending one
 * code. A code is checked against every unused hash of the user with a
 * constant-time comparison, then spent by one conditional UPDATE, so two
 * racing uses of one code have exactly one winner. Every failure (malformed,
 * wrong, already used, lost race) is one counted `recovery_code_failed`.
 */
import {
  newRecoveryCode,
  normaliseRecoveryCode,
  RECOVERY_CODE_COUNT,
  recoveryCodeHash,
} from '../../crypto/recovery-code.js';
import { randomId } from '../../crypto/random.js';
import type { UserRow } from '../../db/schema.js';
import type { Deps, RequestContext } from '../../deps.js';
import { fail } from '../../errors.js';
import {
  countUnusedRecoveryCodes,
  listUnusedRecoveryCodes,
  replaceRecoveryCodes,
  spendRecoveryCode,
} from '../../repositories/recovery-codes.js';
import { timingSafeEqual } from '../../../common/encoding.js';
import { isStepUpCapable } from '../session/step-up.js';

export type RecoveryDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'events' | 'lockout'>;

/** Where a code is used; recorded as `metadata.flow`. */
export type RecoveryFlow = 'login' | 'step_up';

export interface RecoveryActor {
  user: UserRow;
  client: RequestContext;
  sessionId?: string | null;
  attemptId?: string;
}

export const recoveryEventBase = (a: RecoveryActor) => ({
  userId: a.user.id,
  sessionId: a.sessionId ?? null,
  ipAddress: a.client.ip,
  userAgent: a.client.userAgent,
});

export interface GeneratedRecoveryCodes {
  message: 'Success';
  /** The only time the codes leave the server. */
  codes: string[];
  remaining: number;
}

/**
 * A new set of ten codes, voiding the old set in the same batch. Only a user
 * with TOTP or a passkey may hold codes: without one there is no second factor
 * to recover and no step-up for the codes to stand in for.
 */
export async function generateRecoveryCodes(deps: RecoveryDeps, actor: RecoveryActor): Promise<GeneratedRecoveryCodes> {
  const userId = actor.user.id;
  if (!(await isStepUpCapable(deps.db, userId))) throw fail('recovery_codes_unavailable');
  const voided = await countUnusedRecoveryCodes(deps.db, userId);
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const rows = codes.map((code) => ({
    id: randomId(),
    codeHash: recoveryCodeHash(userId, normaliseRecoveryCode(code)!),
  }));
  await replaceRecoveryCodes(deps.db, userId, rows, new Date(deps.clock.now()));
  await deps.events.record({
    ...recoveryEventBase(actor),
    type: 'recovery_codes_generated',
    metadata: { count: codes.length, voidedUnused: voided },
  });
  return { message: 'Success', codes, remaining: codes.length };
}

type FailureReason = 'malformed' | 'invalid_code' | 'already_used';

async function failure(deps: RecoveryDeps, actor: RecoveryActor, flow: RecoveryFlow, reason: FailureReason) {
  const base = recoveryEventBase(actor);
  const metadata = { flow, reason, ...(actor.attemptId ? { attemptId: actor.attemptId } : {}) };
  await deps.events.record({ ...base, type: 'recovery_code_failed', metadata });
  if (flow === 'step_up')
    await deps.events.record({ ...base, type: 'step_up_failed', metadata: { ...metadata, method: 'recovery_code' } });
  const policy = (await deps.config.get()).lockout_policy;
  await deps.lockout.recordFailure(actor.user.id, 'recovery_code_failed', policy, { ...base, metadata });
  // One answer for wrong and spent codes: whether a code once existed is none of the caller's business.
  return fail('recovery_code_invalid');
}

/** Verifies and spends one code; returns how many unused codes remain. */
export async function spendOneRecoveryCode(
  deps: RecoveryDeps,
  actor: RecoveryActor,
  flow: RecoveryFlow,
  code: string,
): Promise<number> {
  const { db } = deps;
  const userId = actor.user.id;
  const policy = (await deps.config.get()).lockout_policy;
  await deps.lockout.assertNotLocked(userId, policy, { ...recoveryEventBase(actor), metadata: { flow } });
  const normalised = normaliseRecoveryCode(code);
  if (!normalised) throw await failure(deps, actor, flow, 'malformed');
  const hash = recoveryCodeHash(userId, normalised);
  // Compare with every unused hash, without stopping at a match, so the time does not say which one (if any) matched.
  let match: string | null = null;
  for (const row of await listUnusedRecoveryCodes(db, userId)) if (timingSafeEqual(row.codeHash, hash)) match = row.id;
  if (!match) throw await failure(deps, actor, flow, 'invalid_code');
  if (!(await spendRecoveryCode(db, match, new Date(deps.clock.now()))))
    throw await failure(deps, actor, flow, 'already_used');
  const remaining = await countUnusedRecoveryCodes(db, userId);
  await deps.events.record({
    ...recoveryEventBase(actor),
    type: 'recovery_code_used',
    metadata: { flow, remaining, ...(actor.attemptId ? { attemptId: actor.attemptId } : {}) },
  });
  return remaining;
}
