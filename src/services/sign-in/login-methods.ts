/**
 * The `loginMethods` policy of `/login` (contract §3.2, "`loginMethods`"
 * there). Pure: the same function serves real principals, decoys and the
 * passkey `last_credential` rule.
 */
import type { LoginMethod } from '../../config/keys.js';

/** The order every list is returned in. `oauth` is never listed (it needs no `/login`). */
export const CANONICAL_ORDER = [
  'passkey',
  'magic_link',
  'email_otp',
  'phone_otp',
] as const satisfies readonly LoginMethod[];

export interface PrincipalFactors {
  hasPasskey: boolean;
  hasVerifiedPhone: boolean;
}

/**
 * @param policy `login_methods`
 * @param fallback `passkey_login_fallback_enabled`
 * @param passkeyAvailable the client's hint; `false` can drop `passkey` but can
 *   never turn a passkey-only policy into another method.
 */
export function computeLoginMethods(
  policy: readonly LoginMethod[],
  fallback: boolean,
  principal: PrincipalFactors,
  passkeyAvailable?: boolean,
): LoginMethod[] {
  const allowed = new Set(policy);
  if (allowed.has('passkey') && principal.hasPasskey && !fallback) return ['passkey'];
  return CANONICAL_ORDER.filter((m) => {
    if (!allowed.has(m)) return false;
    if (m === 'passkey') return principal.hasPasskey && passkeyAvailable !== false;
    if (m === 'phone_otp') return principal.hasVerifiedPhone;
    return true;
  });
}
