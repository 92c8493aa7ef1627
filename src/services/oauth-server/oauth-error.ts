/**
 * Errors of the provider's client-facing endpoints in the RFCs' format
 * (`{error, error_description}`; RFC 6749 §5.2, RFC 6750 §3.1, RFC 7009,
 * RFC 7662), not svc's envelope: the callers are generic OAuth libraries.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_token_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'invalid_token'
  | 'insufficient_scope';

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status: 400 | 401 | 403 = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
  }

  body(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}

export const oauthError = (
  code: OAuthErrorCode,
  description: string,
  status: 400 | 401 | 403 = 400,
  headers: Record<string, string> = {},
) => new OAuthError(code, description, status, headers);

/** RFC 6749 §5.1: token answers are never cached. */
export const NO_STORE_HEADERS = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;
