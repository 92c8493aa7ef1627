/**
 * Spending one TOTP code (contract §3.12, §3.18): lockout check first, then
 * decrypt, match within ±1 step, and spend the counter with one conditional
 * statement (replay protection). Every failure is a counted `totp_failed`.
 * A replay answers its own code, `totp_code_already_used`: it is only reached
 * with a code that matched the secret, so it tells the caller nothing but "wait
 * for the next step", and it is counted toward the lockout like any failure.
 */
import { openSecret } from '../../crypto/secret-box.js';
import { matchTotpCounter } from '../../crypto/totp.js';
import type { TotpCredentialRow, UserRow } from '../../db/schema.js';
import type { Deps, RequestContext } from '../../deps.js';
import { fail } from '../../errors.js';

export type TotpDeps = Pick<
  Deps,
  'db' | 'clock' | 'config' | 'env' | 'events' | 'lockout' | 'keys' | 'refreshTokenHasher'
>;

/** Where a code is used; recorded as `metadata.flow`. */
export type TotpFlow = 'enrollment' | 'disable' | 'login' | 'step_up';

export interface TotpActor {
  user: UserRow;
  client: RequestContext;
  sessionId?: string | null;
  attemptId?: string;
}

export interface SpendCodeInput {
  actor: TotpActor;
  flow: TotpFlow;
  code: string;
  /** Loads the credential the code must match; null → `onMissing`. */
  load: () => Promise<TotpCredentialRow | null>;
  /** Spends the counter atomically; false means replayed (or the row changed meanwhile). */
  spend: (row: TotpCredentialRow, counter: number, nowMs: number) => Promise<boolean>;
  /** The error for "no credential to check against" (not a counted failure). */
  onMissing: () => Error;
}

export const eventBase = (a: TotpActor) => ({
  userId: a.user.id,
  sessionId: a.sessionId ?? null,
  ipAddress: a.client.ip,
  userAgent: a.client.userAgent,
});

async function failure(
  deps: TotpDeps,
  input: SpendCodeInput,
  reason: 'invalid_code' | 'replay' | 'decrypt_failed',
): Promise<Error> {
  const { actor, flow } = input;
  const base = eventBase(actor);
  const metadata = { flow, reason, ...(actor.attemptId ? { attemptId: actor.attemptId } : {}) };
  if (reason === 'decrypt_failed') await deps.events.record({ ...base, type: 'totp_suspicious', metadata });
  await deps.events.record({ ...base, type: 'totp_failed', metadata });
  if (flow === 'step_up') await deps.events.record({ ...base, type: 'mfa_otp_failed', metadata });
  const policy = (await deps.config.get()).lockout_policy;
  await deps.lockout.recordFailure(actor.user.id, 'totp_failed', policy, { ...base, metadata });
  // An enrolment row has no spent step yet: its `spend` fails only on a race with another enrolment.
  return fail(reason === 'replay' && flow !== 'enrollment' ? 'totp_code_already_used' : 'totp_verification_failed');
}

/** Throws 423 while the user is locked out (before any verification). */
export async function assertTotpNotLocked(deps: TotpDeps, actor: TotpActor, flow: TotpFlow): Promise<void> {
  const policy = (await deps.config.get()).lockout_policy;
  await deps.lockout.assertNotLocked(actor.user.id, policy, { ...eventBase(actor), metadata: { flow } });
}

/** Verifies and spends one code; returns the credential it matched. */
export async function spendTotpCode(deps: TotpDeps, input: SpendCodeInput): Promise<TotpCredentialRow> {
  await assertTotpNotLocked(deps, input.actor, input.flow);
  const row = await input.load();
  if (!row) throw input.onMissing();
  const secret = await openSecret(deps.env.secrets.totpEncryption, row.userId, {
    ciphertext: row.secretCiphertext,
    iv: row.secretIv,
  });
  if (!secret) throw await failure(deps, input, 'decrypt_failed');
  const now = deps.clock.now();
  const counter = matchTotpCounter(secret, input.code, now);
  if (counter === null) throw await failure(deps, input, 'invalid_code');
  if (!(await input.spend(row, counter, now))) throw await failure(deps, input, 'replay');
  return row;
}
