/**
 * `POST /login` (contract §3.2): resolves the identifier to a real principal
 * or the decoy, checks the lock, and mints the `ctx:"login"` ephemeral token.
 * The real and the decoy path return the same shape. `/login` sees no secret, so
 * it writes a counted `login_failed` row only when the lock refuses it, which
 * real and decoy subjects reach the same way; a row for an identifier that
 * cannot sign in would tell accounts apart, and one for every call would let
 * anonymous calls lock a victim out (docs/contract-changes.md).
 */
import type { LoginMethod } from '../../config/keys.js';
import { EPHEMERAL_TTL_SECONDS, signEphemeralToken } from '../../crypto/jwt.js';
import { randomId } from '../../crypto/random.js';
import { ApiError } from '../../errors.js';
import type { Deps, RequestContext } from '../../deps.js';
import { findLoginPrincipal } from '../../repositories/principals.js';
import { clientFields } from '../events/auth-events.js';
import { decoyPrincipal } from './decoy.js';
import type { Identifier, IdentifierType } from '../contact/identifier.js';
import { computeLoginMethods } from './login-methods.js';

export interface LoginStartResult {
  message: 'Success';
  sub: string;
  token: string;
  identifierType: IdentifierType;
  loginMethods: LoginMethod[];
  ttl: number;
}

type DecoyReason = 'unknown' | 'unverified' | 'revoked' | 'no_method';

type LoginDeps = Pick<Deps, 'db' | 'config' | 'env' | 'clock' | 'keys' | 'events' | 'lockout'>;

export async function startLogin(
  deps: LoginDeps,
  input: { identifier: Identifier; passkeyAvailable?: boolean; client: RequestContext },
): Promise<LoginStartResult> {
  const { identifier, passkeyAvailable, client } = input;
  const cfg = await deps.config.get();
  const policy = { loginMethods: cfg.login_methods, fallback: cfg.passkey_login_fallback_enabled };
  const principal = await findLoginPrincipal(deps.db, identifier);
  const user = principal?.user ?? null;

  let subject: string;
  let loginMethods: LoginMethod[] = [];
  let decoyReason: DecoyReason | null = null;
  if (!user) decoyReason = 'unknown';
  else if (user.revoked) decoyReason = 'revoked';
  else if (!user.verified) decoyReason = 'unverified';
  else {
    const factors = { hasPasskey: principal!.hasPasskey, hasVerifiedPhone: user.phoneVerified && !!user.phone };
    loginMethods = computeLoginMethods(policy.loginMethods, policy.fallback, factors, passkeyAvailable);
    if (loginMethods.length === 0) decoyReason = 'no_method';
  }

  if (decoyReason || !user) {
    const decoy = decoyPrincipal(deps.env.secrets.decoySubject, identifier.type, identifier.value, policy);
    subject = decoy.subject;
    loginMethods = computeLoginMethods(policy.loginMethods, policy.fallback, decoy, passkeyAvailable);
  } else {
    subject = user.id;
  }

  const attemptId = randomId();
  const realUserId = decoyReason ? null : subject;
  const eventBase = { ...clientFields(client), userId: realUserId };
  const lockEvent = {
    ...eventBase,
    metadata: { identifierType: identifier.type, attemptId, ...(decoyReason ? { decoy: true } : {}) },
  };
  try {
    await deps.lockout.assertNotLocked(subject, cfg.lockout_policy, lockEvent);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'account_locked') {
      const failed = { ...lockEvent, metadata: { ...lockEvent.metadata, reason: 'locked' } };
      await deps.events.record({ ...failed, type: 'login_failed' });
      await deps.lockout.recordFailure(subject, 'login_failed', cfg.lockout_policy, failed);
    }
    throw err;
  }

  const token = await signEphemeralToken(
    deps.keys,
    { sub: subject, ctx: 'login', idt: identifier.type, jti: attemptId },
    { issuer: deps.env.issuer, nowMs: deps.clock.now() },
  );
  if (decoyReason) {
    // The real user id is kept out of decoy rows on purpose: a decoy is not the account.
    await deps.events.record({
      ...eventBase,
      type: 'login_failed',
      metadata: { decoy: true, reason: decoyReason, identifierType: identifier.type, attemptId },
    });
  } else {
    await deps.events.record({
      ...eventBase,
      type: 'login_started',
      metadata: { identifierType: identifier.type, loginMethods, attemptId },
    });
  }
  return {
    message: 'Success',
    sub: subject,
    token,
    identifierType: identifier.type,
    loginMethods,
    ttl: EPHEMERAL_TTL_SECONDS,
  };
}
