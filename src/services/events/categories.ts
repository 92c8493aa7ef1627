/**
 * Event categories (contract §2.16, §3.16): the prefix groups of the event
 * table; a `_suspicious` type counts as `suspicious`, a `_failed` type is a
 * failure. Admin query shorthands expand to their group.
 */

export const EVENT_GROUPS = {
  login: ['login_started', 'login_failed', 'login_suspicious', 'account_locked'],
  registration: [
    'user_created',
    'registration_started',
    'registration_success',
    'registration_suspicious',
    'registration_failed',
    'owner_role_granted',
  ],
  otp: ['otp_sent', 'verify_otp_success', 'verify_otp_failed', 'sms_budget_exceeded', 'sms_calling_code_blocked'],
  magicLink: [
    'magic_link_requested',
    'magic_link_success',
    'magic_link_failed',
    'magic_link_suspicious',
    'magic_link_poll_completed_successfully',
  ],
  webauthn: [
    'login_challenge',
    'webauthn_login_success',
    'webauthn_login_failed',
    'webauthn_registration_challenge',
    'webauthn_registration_success',
    'webauthn_registration_failed',
    'credential_updated',
    'credential_deleted',
  ],
  token: [
    'session_issued',
    'refresh_token_success',
    'refresh_token_failed',
    'refresh_token_suspicious',
    'logout_success',
    'session_revoked',
    'bearer_token_failed',
    'service_token_failed',
  ],
  totp: [
    'mfa_required',
    'totp_enrollment_started',
    'totp_enrollment_success',
    'totp_success',
    'totp_failed',
    'totp_disabled',
    'totp_suspicious',
    'mfa_otp_success',
    'mfa_otp_failed',
    'recovery_codes_generated',
    'recovery_code_used',
    'recovery_code_failed',
  ],
  stepUp: ['step_up_challenge', 'step_up_success', 'step_up_failed', 'step_up_required'],
  oauth: ['oauth_login_started', 'oauth_login_success', 'oauth_login_failed', 'oauth_identity_linked'],
  system: ['system_config_read', 'system_config_updated', 'system_config_error', 'request_suspicious'],
} as const satisfies Record<string, readonly string[]>;

export const CATEGORIES = [
  'suspicious',
  'login',
  'registration',
  'webauthn',
  'oauth',
  'magicLink',
  'otp',
  'totp',
  'stepUp',
  'token',
  'system',
  'other',
] as const;
export type Category = (typeof CATEGORIES)[number];

const groupOf = new Map<string, Category>(
  Object.entries(EVENT_GROUPS).flatMap(([group, types]) => types.map((t) => [t, group as Category])),
);

/** The metrics category of one event type (delivery, organization and admin events are `other`). */
export function categoryOf(type: string): Category {
  if (type.endsWith('_suspicious')) return 'suspicious';
  return groupOf.get(type) ?? 'other';
}

export type Outcome = 'success' | 'failed' | 'suspicious' | null;

export function outcomeOf(type: string): Outcome {
  if (type.endsWith('_failed')) return 'failed';
  if (type.endsWith('_suspicious')) return 'suspicious';
  if (type.endsWith('_success') || type.endsWith('_successfully')) return 'success';
  return null;
}

/** Sign-in outcomes for login statistics: an issued session vs a failed first or second factor. */
export const LOGIN_SUCCESS_TYPES = ['session_issued'] as const;
export const LOGIN_FAILURE_TYPES = [
  'login_failed',
  'webauthn_login_failed',
  'verify_otp_failed',
  'totp_failed',
  'magic_link_failed',
  'oauth_login_failed',
  'recovery_code_failed',
] as const;

/** SMS sends the pumping guard refused (allowlist or budget). */
export const SMS_REFUSAL_TYPES = ['sms_budget_exceeded', 'sms_calling_code_blocked'] as const;

/** Anomalies: suspicious events and lock starts. */
export const isAnomalyType = (type: string) => type.endsWith('_suspicious') || type === 'account_locked';

/** Query shorthands of `GET /admin/auth-events` (§3.15). `suspicious` is a suffix match. */
export const TYPE_SHORTHANDS: Record<string, readonly string[] | 'suffix:_suspicious'> = {
  login: EVENT_GROUPS.login,
  otp: EVENT_GROUPS.otp,
  webauthn: EVENT_GROUPS.webauthn,
  magicLink: EVENT_GROUPS.magicLink,
  suspicious: 'suffix:_suspicious',
};

/**
 * The OAuth provider's client management (docs/oauth-provider.md, "Clients"): admin writes, dynamic
 * registrations and a user's revoked consent. Category `other`; metadata holds ids and names, never a secret.
 */
export const OAUTH_CLIENT_EVENT_TYPES = [
  'oauth_client_created',
  'oauth_client_updated',
  'oauth_client_deleted',
  'oauth_client_secret_rotated',
  'oauth_client_registered',
  'oauth_consent_revoked',
] as const;

/**
 * The OAuth provider's events (docs/oauth-provider.md), category `other`:
 * consent answers, token issuance (`grantType`, `clientId`), a replayed code
 * or refresh token, and a grant's end. None carries a secret, code or token.
 */
export const OAUTH_SERVER_EVENT_TYPES = [
  'oauth_consent_granted',
  'oauth_consent_denied',
  'oauth_token_issued',
  'oauth_code_replayed',
  'oauth_refresh_reused',
  'oauth_grant_revoked',
] as const;
