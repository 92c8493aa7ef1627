/**
 * How a session was authenticated, as access-token claims (RFC 9470 §4,
 * RFC 9068 §2.2.1, OpenID Connect Core §2): `auth_time` is the last active
 * authentication (sign-in, or a later step-up), `amr` the methods used
 * (RFC 8176 values where one exists), `acr` whether the session has completed
 * a step-up. A resource server enforces the step-up rule of the API itself
 * with `acr === ACR_STEP_UP && now - auth_time <= max_age`.
 */
import type { SessionRow } from '../../db/schema.js';
import { STEP_UP_MAX_AGE_SECONDS } from './step-up.js';

/** Signed in; no step-up on this session yet. */
export const ACR_SESSION = 'urn:svc:acr:session';
/** A passkey or TOTP step-up was completed on this session (its time is `auth_time`). */
export const ACR_STEP_UP = 'urn:svc:acr:step-up';

/**
 * RFC 8176 where a value fits: `pop` (proof of possession of a key, a passkey)
 * with `user` (user verification is required on every ceremony), `otp`, `sms`,
 * `mfa`. No registered value exists for a link sent by e-mail or a federated
 * sign-in, so those carry `email` and `fed`.
 */
const METHOD_AMR: Record<string, string[]> = {
  passkey: ['pop', 'user'],
  email_otp: ['otp', 'email'],
  phone_otp: ['otp', 'sms'],
  magic_link: ['email'],
  oauth: ['fed'],
  // The MFA step: a first factor was verified before the TOTP code.
  totp: ['otp', 'mfa'],
  registration: ['otp', 'email'],
  // The MFA step with a one-time recovery code (docs/recovery-codes.md) instead of TOTP.
  recovery_code: ['otp', 'mfa'],
};
const STEP_UP_AMR: Record<string, string[]> = { webauthn: ['pop', 'user'], totp: ['otp'], recovery_code: ['otp'] };

export type SessionAuth = Pick<SessionRow, 'authTime' | 'authMethod' | 'stepUpVerifiedAt' | 'stepUpMethod'>;

export interface AuthClaims {
  acr: string;
  auth_time?: number;
  amr?: string[];
}

/** The claims for a session; sessions created before `auth_time` was recorded get `acr` only. */
export function authClaims(s: SessionAuth): AuthClaims {
  const stepUpMs = s.stepUpVerifiedAt?.getTime() ?? null;
  const claims: AuthClaims = { acr: stepUpMs === null ? ACR_SESSION : ACR_STEP_UP };
  if (!s.authTime) return claims;
  claims.auth_time = Math.floor(Math.max(s.authTime.getTime(), stepUpMs ?? 0) / 1000);
  const amr = new Set(METHOD_AMR[s.authMethod ?? ''] ?? []);
  if (stepUpMs !== null && s.stepUpMethod) {
    for (const v of STEP_UP_AMR[s.stepUpMethod] ?? []) amr.add(v);
    amr.add('mfa');
  }
  if (amr.size) claims.amr = [...amr];
  return claims;
}

/** SQLite answers raw `RETURNING` timestamps as epoch ms. */
export const msToDate = (v: unknown): Date | null =>
  typeof v === 'number' ? new Date(v) : v instanceof Date ? v : null;

/**
 * RFC 9470 §3 challenge for a 403 `step_up_required`: `max_age` is the step-up
 * window, `acr_values` the step-up class the token must carry.
 *
 * @example
 * stepUpChallenge() // 'Bearer error="insufficient_user_authentication", …, max_age=300'
 */
export function stepUpChallenge(maxAgeSeconds = STEP_UP_MAX_AGE_SECONDS): string {
  return `Bearer error="insufficient_user_authentication", error_description="A recent step-up authentication is required", acr_values="${ACR_STEP_UP}", max_age=${maxAgeSeconds}`;
}
