/**
 * The two uses of a recovery code (docs/recovery-codes.md): completing the MFA
 * step of a sign-in in place of a TOTP code, and stepping up a session.
 */
import type { Deps } from '../../deps.js';
import { fail } from '../../errors.js';
import { issueSession, type MfaRequiredBody, type SessionEnvelope } from '../session/issuance.js';
import { isStepUpCapable, markStepUp, type StepUpStatus } from '../session/step-up.js';
import { type RecoveryActor, type RecoveryDeps, recoveryEventBase, spendOneRecoveryCode } from './codes.js';

type LoginDeps = RecoveryDeps & Pick<Deps, 'keys' | 'env' | 'refreshTokenHasher'>;

/** The MFA step (contract §3.7) with a recovery code: a valid unused code issues the session. */
export async function verifyRecoveryCodeLogin(
  deps: LoginDeps,
  actor: RecoveryActor,
  code: string,
): Promise<SessionEnvelope | MfaRequiredBody> {
  await spendOneRecoveryCode(deps, actor, 'login', code);
  return issueSession(deps, {
    user: actor.user,
    method: 'recovery_code',
    client: actor.client,
    mfaSatisfied: true,
    attemptId: actor.attemptId,
  });
}

/**
 * Step-up with a recovery code (contract §3.11): marks the current session
 * fresh. Only while the user still has TOTP or a passkey: codes stand in for
 * a second factor the account has, never for one it has removed.
 */
export async function verifyRecoveryCodeStepUp(
  deps: RecoveryDeps,
  actor: RecoveryActor & { sessionId: string },
  code: string,
): Promise<StepUpStatus> {
  if (!(await isStepUpCapable(deps.db, actor.user.id))) throw fail('step_up_unavailable');
  await spendOneRecoveryCode(deps, actor, 'step_up', code);
  const status = await markStepUp(deps.db, actor.sessionId, 'recovery_code', deps.clock.now());
  await deps.events.record({
    ...recoveryEventBase(actor),
    type: 'step_up_success',
    metadata: { method: 'recovery_code' },
  });
  return status;
}
