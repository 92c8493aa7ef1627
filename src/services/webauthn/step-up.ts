/**
 * Passkey step-up (contract §3.11, §4.5): a user-verified assertion over a
 * `step_up` challenge marks the current session fresh for 300 s.
 */
import type { AuthenticationResponseJSON } from '../../crypto/webauthn/types.js';
import type { AccessAuth, Deps, RequestContext } from '../../deps.js';
import { fail } from '../../errors.js';
import { listCredentials } from '../../repositories/credentials.js';
import { clientFields } from '../events/auth-events.js';
import { markStepUp } from '../session/step-up.js';
import { assertionOptions, filterCredentials, verifyAssertion } from './assertion.js';
import { issueChallenge } from './challenges.js';
import type { PrfInput } from './prf.js';

export async function startPasskeyStepUp(
  deps: Deps,
  input: { auth: AccessAuth; client: RequestContext; credentialId?: string | undefined; prf?: PrfInput | undefined },
) {
  const { user, session } = input.auth;
  const allow = filterCredentials(await listCredentials(deps.db, user.id), input);
  if (allow.length === 0) throw fail('step_up_unavailable');
  const challenge = await issueChallenge(deps.db, {
    userId: user.id,
    purpose: 'step_up',
    context: { prfRequested: !!input.prf, ...(input.credentialId ? { credentialId: input.credentialId } : {}) },
    nowMs: deps.clock.now(),
  });
  await deps.events.record({
    type: 'step_up_challenge',
    userId: user.id,
    sessionId: session.id,
    ...clientFields(input.client),
    metadata: { method: 'webauthn' },
  });
  return assertionOptions(deps, { challenge, allow, prf: input.prf });
}

export async function finishPasskeyStepUp(
  deps: Deps,
  input: { auth: AccessAuth; client: RequestContext; response: AuthenticationResponseJSON },
) {
  const { user, session } = input.auth;
  const base = { userId: user.id, sessionId: session.id, ...clientFields(input.client) };
  const result = await verifyAssertion(deps, { userId: user.id, purpose: 'step_up', response: input.response });
  if (!result.ok) {
    await deps.events.record({
      ...base,
      type: 'step_up_failed',
      metadata: { method: 'webauthn', reason: result.reason },
    });
    throw fail('step_up_failed');
  }
  const status = await markStepUp(deps.db, session.id, 'webauthn', deps.clock.now());
  await deps.events.record({ ...base, type: 'step_up_success', metadata: { method: 'webauthn' } });
  return { message: 'Success' as const, ...status };
}
