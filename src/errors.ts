/**
 * The one table of wire error codes (contract §0.4). A code maps to its HTTP
 * status and default message; routes and services raise `ApiError` (or return
 * a failed `Result`) and `app.onError` renders the envelope.
 */
export const ERRORS = {
  invalid_request: [400, 'Request failed schema validation.'],
  invalid_identifier: [400, 'Identifier must be an email address or an international phone number'],
  phone_not_available: [400, 'No phone number is available for this account'],
  redirect_not_allowed: [400, 'Redirect URI is not allowed'],
  invalid_device_data: [400, 'Invalid device data'],
  invalid_verification_token: [400, 'Invalid verification token'],
  magic_link_confirmation_failed: [
    400,
    'That was not the number shown where you asked for the link; the link is cancelled',
  ],
  prf_output_not_allowed: [400, 'PRF output must not be sent to the server'],
  oauth_redirect_not_allowed: [400, 'OAuth redirect URI is not allowed'],
  oauth_invalid_state: [400, 'Invalid OAuth state'],
  oauth_login_failed: [400, 'OAuth login failed'],
  oauth_missing_subject: [400, 'OAuth profile did not include a provider subject'],
  oauth_missing_email: [400, 'OAuth profile did not include an email address'],
  oauth_email_not_verified: [400, 'OAuth profile email is not verified'],
  last_owner: [400, 'Organization must keep at least one owner'],
  role_not_available: [400, 'Role is not in available_roles'],
  role_in_use: [400, 'Role is currently assigned to users and cannot be removed'],
  invalid_config: [400, 'Invalid system config payload'],
  no_changes: [400, 'No valid configuration values provided'],
  unauthorized: [401, 'Invalid or expired token'],
  invalid_refresh_token: [401, 'Invalid refresh token'],
  refresh_token_reused: [401, 'Refresh token reuse detected'],
  otp_verification_failed: [401, 'Invalid or expired code'],
  authentication_failed: [401, 'Authentication failed.'],
  credentials_not_found: [401, 'Credentials not found'],
  id_token_invalid: [401, 'Invalid ID token'],
  id_token_nonce_mismatch: [401, 'ID token nonce does not match'],
  id_token_replayed: [401, 'ID token nonce was already used'],
  totp_verification_failed: [403, 'Invalid TOTP code'],
  totp_code_already_used: [403, 'That code was already used; wait for the next one'],
  not_allowed: [403, 'Not allowed'],
  forbidden: [403, 'Insufficient role'],
  step_up_required: [403, 'Recent step-up authentication is required'],
  step_up_unavailable: [403, 'No step-up method is available'],
  step_up_failed: [403, 'Step-up verification failed'],
  login_method_disabled: [403, 'Login method is disabled'],
  webauthn_registration_failed: [403, 'Passkey registration failed'],
  prf_required: [403, 'Authenticator must support PRF'],
  oauth_signup_disabled: [403, 'OAuth signup is disabled'],
  origin_not_allowed: [403, 'Origin is not allowed'],
  not_found: [404, 'Not found'],
  oauth_provider_not_found: [404, 'OAuth provider not found'],
  method_not_allowed: [405, 'Method not allowed'],
  already_exists: [409, 'Already exists'],
  last_credential: [409, 'Cannot remove the last sign-in method'],
  request_timeout: [408, 'The request did not arrive in time'],
  payload_too_large: [413, 'Payload too large'],
  account_locked: [423, 'Too many failed authentication attempts. Try again later.'],
  rate_limited: [429, 'Too many requests, please try again later.'],
  headers_too_large: [431, 'Request header fields too large'],
  internal_error: [500, 'Internal server error'],
  jwks_unavailable: [500, 'JWKS unavailable'],
  service_unavailable: [503, 'The service is busy; retry shortly'],
  // Recovery codes (docs/recovery-codes.md); 401 on the pre-auth verify-login route (§0.4 status rule).
  recovery_codes_unavailable: [403, 'Recovery codes need TOTP or a passkey first'],
  recovery_code_invalid: [403, 'Invalid or already used recovery code'],
  email_in_use: [409, 'That email address belongs to another account'],
  phone_in_use: [409, 'That phone number belongs to another account'],
  challenge_required: [400, 'A bot-protection challenge token is required'],
  challenge_failed: [403, 'The bot-protection challenge failed; try again'],
  challenge_unavailable: [503, 'The bot-protection check is unavailable; retry shortly'],
  // OAuth provider clients (docs/oauth-provider.md): admin and user routes answer in the envelope.
  oauth_client_not_found: [404, 'OAuth client not found'],
  oauth_client_not_confidential: [400, 'A public client has no secret'],
  oauth_registration_disabled: [404, 'Dynamic client registration is not enabled'],
  // The OAuth 2.1 / OpenID Connect provider (docs/oauth-provider.md).
  oauth_server_disabled: [404, 'The OAuth provider is not enabled'],
  oauth_request_expired: [400, 'The authorization request expired or was already answered'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERRORS;

export type ErrorExtras = Record<string, unknown>;

/** A failure with a stable code; rendered as `{error, message, ...extras}`. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extras: ErrorExtras | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message?: string, extras?: ErrorExtras, headers?: Record<string, string>) {
    super(message ?? ERRORS[code][1]);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERRORS[code][0];
    this.extras = extras;
    this.headers = headers;
  }

  body(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.extras };
  }
}

/** Shorthand used by routes and services: `throw fail('not_found', 'Session not found')`. */
export function fail(
  code: ErrorCode,
  message?: string,
  extras?: ErrorExtras,
  headers?: Record<string, string>,
): ApiError {
  return new ApiError(code, message, extras, headers);
}

/** The exact 500 body of contract §0.4. */
export const INTERNAL_ERROR_BODY = { error: 'internal_error', message: 'Internal server error' } as const;
