/**
 * The decoy principal (contract §1.10): what an unknown, unverified or
 * revoked identifier continues as. Nothing is stored; every attribute is an
 * HMAC of the identifier under `DECOY_SUBJECT_SECRET ?? API_SERVICE_TOKEN`, so
 * the same identifier always looks the same and later steps can re-derive the
 * shape from the token subject alone.
 */
import type { LoginMethod } from '../../config/keys.js';
import { toBase64Url, toHex } from '../../../common/encoding.js';
import { hmacSha256 } from '../../crypto/hash.js';
import type { IdentifierType } from '../contact/identifier.js';
import { computeLoginMethods } from './login-methods.js';

export interface DecoyShape {
  hasPasskey: boolean;
  hasVerifiedPhone: boolean;
  prfCapable: boolean;
  transports: string[];
  /** base64url of 32 HMAC bytes: the one fabricated passkey id. */
  credentialId: string;
}

export interface DecoyPrincipal extends DecoyShape {
  subject: string;
}

/** The first 16 HMAC bytes formatted as a UUID v4 (version nibble 4, variant 10). */
export function decoySubject(secret: string, type: IdentifierType, identifier: string): string {
  const b = hmacSha256(secret, `svc/decoy-subject:${type}:${identifier}`).slice(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = toHex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export interface DecoyPolicy {
  loginMethods: readonly LoginMethod[];
  fallback: boolean;
}

/**
 * The shape of a decoy subject. `idt` is the identifier type of a login token
 * (absent for registration). With `policy`, the §1.10 rule applies: a shape
 * whose login methods would be empty is treated as having a passkey and a
 * verified phone (computed without the client hint, so every later step
 * re-derives the same shape from the token alone).
 */
export function decoyShapeForSubject(
  secret: string,
  subject: string,
  idt?: IdentifierType,
  policy?: DecoyPolicy,
): DecoyShape {
  const b = hmacSha256(secret, `svc/decoy-shape:${subject}`)[0]!;
  let hasPasskey = (b & 1) === 1;
  let hasVerifiedPhone = idt === 'phone' || (b & 2) === 2;
  if (
    policy &&
    computeLoginMethods(policy.loginMethods, policy.fallback, { hasPasskey, hasVerifiedPhone }).length === 0
  ) {
    hasPasskey = true;
    hasVerifiedPhone = true;
  }
  return {
    hasPasskey,
    hasVerifiedPhone,
    prfCapable: hasPasskey && (b & 4) === 4,
    transports: (b & 8) === 8 ? ['internal', 'hybrid'] : ['usb', 'nfc'],
    credentialId: toBase64Url(hmacSha256(secret, `svc/decoy-credential:${subject}`)),
  };
}

export function decoyPrincipal(
  secret: string,
  type: IdentifierType,
  identifier: string,
  policy?: DecoyPolicy,
): DecoyPrincipal {
  const subject = decoySubject(secret, type, identifier);
  return { subject, ...decoyShapeForSubject(secret, subject, type, policy) };
}
