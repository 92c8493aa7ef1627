/**
 * `loginMethods` of a principal (contract §3.2), needed here for the decoy
 * fallback (§1.10) and the `last_credential` rule (§3.10).
 * TODO(issue 3): the /login feature owns the canonical version
 * (`src/services/login-methods.ts`); switch to it once it is on main.
 */
import { LOGIN_METHODS, type LoginMethod } from '../../config/keys.js';

export interface PrincipalFactors {
  hasPasskey: boolean;
  hasVerifiedPhone: boolean;
}

export function computeLoginMethods(
  policy: readonly LoginMethod[],
  fallback: boolean,
  principal: PrincipalFactors,
  passkeyAvailable?: boolean,
): LoginMethod[] {
  const allowed = new Set(policy);
  // A passkey-only policy cannot be bypassed by the passkeyAvailable hint.
  if (allowed.has('passkey') && principal.hasPasskey && !fallback) return ['passkey'];
  return LOGIN_METHODS.filter((m) => {
    if (!allowed.has(m)) return false;
    if (m === 'passkey') return principal.hasPasskey && passkeyAvailable !== false;
    if (m === 'phone_otp') return principal.hasVerifiedPhone;
    return m !== 'oauth';
  });
}
