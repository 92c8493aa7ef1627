/**
 * Passkey login (contract §3.6, §3.20): start answers request options for the
 * principal's passkeys (or the decoy's one fabricated credential, with no
 * challenge stored); finish verifies the assertion, counts failures for
 * lockout and issues a session. A user-verified passkey satisfies MFA.
 */
import type { AuthenticationResponseJSON } from '../../crypto/webauthn/types.js';
import { randomToken } from '../../crypto/random.js';
import type { Deps, EphemeralAuth, RequestContext } from '../../deps.js';
import { fail } from '../../errors.js';
import { listCredentials } from '../../repositories/credentials.js';
import { clientFields } from '../events/auth-events.js';
import { decoyShapeForSubject } from '../sign-in/decoy.js';
import { issueSession } from '../session/issuance.js';
import { assertionOptions, filterCredentials, verifyAssertion } from './assertion.js';
import { issueChallenge } from './challenges.js';
import { assertNoPrfOutput, type PrfInput } from './prf.js';

export interface LoginStartInput {
  auth: EphemeralAuth;
  client: RequestContext;
  credentialId?: string | undefined;
  prf?: PrfInput | undefined;
}

/** Login-policy check (§3.0 step 8): passkey must be in `login_methods`, for real and decoy principals. */
async function assertPasskeyAllowed(deps: Pick<Deps, 'config'>) {
  const cfg = await deps.config.get();
  if (!cfg.login_methods.includes('passkey')) throw fail('login_method_disabled');
  return cfg;
}

export async function startPasskeyLogin(deps: Deps, input: LoginStartInput) {
  const cfg = await assertPasskeyAllowed(deps);
  const { auth, client } = input;
  const filters = { credentialId: input.credentialId, prf: input.prf };
  const eventBase = { ...clientFields(client), metadata: { attemptId: auth.claims.jti } };

  if (!auth.user) {
    const decoy = decoyShapeForSubject(deps.env.secrets.decoySubject, auth.subject, auth.claims.idt, {
      loginMethods: cfg.login_methods,
      fallback: cfg.passkey_login_fallback_enabled,
    });
    const fabricated = decoy.hasPasskey
      ? [{ id: decoy.credentialId, transports: decoy.transports, prfCapable: decoy.prfCapable }]
      : [];
    const allow = filterCredentials(fabricated, filters);
    if (allow.length === 0) throw fail('credentials_not_found');
    await deps.events.record({
      ...eventBase,
      type: 'login_challenge',
      metadata: { ...eventBase.metadata, decoy: true },
    });
    return assertionOptions(deps, { challenge: randomToken(32), allow, prf: input.prf });
  }

  const allow = filterCredentials(await listCredentials(deps.db, auth.user.id), filters);
  if (allow.length === 0) throw fail('credentials_not_found');
  const challenge = await issueChallenge(deps.db, {
    userId: auth.user.id,
    purpose: 'authentication',
    context: { prfRequested: !!input.prf, ...(input.credentialId ? { credentialId: input.credentialId } : {}) },
    nowMs: deps.clock.now(),
  });
  await deps.events.record({ ...eventBase, type: 'login_challenge', userId: auth.user.id });
  return assertionOptions(deps, { challenge, allow, prf: input.prf });
}

export async function finishPasskeyLogin(
  deps: Deps,
  input: { auth: EphemeralAuth; client: RequestContext; response: AuthenticationResponseJSON },
) {
  const cfg = await assertPasskeyAllowed(deps);
  const { auth, client } = input;
  const attemptId = auth.claims.jti;
  const eventBase = { userId: auth.user?.id ?? null, ...clientFields(client) };
  await deps.lockout.assertNotLocked(auth.subject, cfg.lockout_policy, {
    ...eventBase,
    metadata: { attemptId, flow: 'webauthn_login' },
  });

  const failed = async (reason: string) => {
    const metadata = { reason, attemptId, ...(auth.user ? {} : { decoy: true }) };
    await deps.events.record({ ...eventBase, type: 'webauthn_login_failed', metadata });
    await deps.lockout.recordFailure(auth.subject, 'webauthn_login_failed', cfg.lockout_policy, {
      ...eventBase,
      metadata,
    });
    return fail('authentication_failed');
  };

  if (!auth.user) {
    assertNoPrfOutput(input.response.clientExtensionResults);
    throw await failed('unknown_credential');
  }
  const result = await verifyAssertion(deps, {
    userId: auth.user.id,
    purpose: 'authentication',
    response: input.response,
  });
  if (!result.ok) throw await failed(result.reason);

  await deps.events.record({ ...eventBase, type: 'webauthn_login_success', metadata: { attemptId } });
  // Registration and assertion both require UV, so the passkey is a complete MFA (§3.7).
  return issueSession(deps, { user: auth.user, method: 'passkey', client, mfaSatisfied: true, attemptId });
}
