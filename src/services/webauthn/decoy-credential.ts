/**
 * The decoy principal's passkey (contract §1.10, §3.20): derived from the
 * decoy subject with HMAC(K, purpose-labelled message), never stored, so a
 * `/webauthn/login/start` for an unknown account answers like a real one.
 * TODO(issue 3): share the shape derivation with the /login decoy once merged.
 */
import type { LoginMethod } from '../../config/keys.js';
import { toBase64Url } from '../../crypto/encoding.js';
import { hmacSha256 } from '../../crypto/hash.js';
import { computeLoginMethods } from './login-policy.js';

export interface DecoyPasskey {
  hasPasskey: boolean;
  prfCapable: boolean;
  transports: string[];
  credentialId: string;
}

export function decoyPasskey(
  key: string,
  subject: string,
  idt: 'email' | 'phone' | undefined,
  policy: { loginMethods: readonly LoginMethod[]; fallback: boolean },
): DecoyPasskey {
  const b = hmacSha256(key, `svc/decoy-shape:${subject}`)[0]!;
  let hasPasskey = (b & 0b0001) !== 0;
  const hasVerifiedPhone = idt === 'phone' || (b & 0b0010) !== 0;
  // A decoy whose loginMethods would be empty is treated as having a passkey and a phone (§1.10).
  if (computeLoginMethods(policy.loginMethods, policy.fallback, { hasPasskey, hasVerifiedPhone }).length === 0) hasPasskey = true;
  return {
    hasPasskey,
    prfCapable: hasPasskey && (b & 0b0100) !== 0,
    transports: (b & 0b1000) !== 0 ? ['internal', 'hybrid'] : ['usb', 'nfc'],
    credentialId: toBase64Url(hmacSha256(key, `svc/decoy-credential:${subject}`)),
  };
}
