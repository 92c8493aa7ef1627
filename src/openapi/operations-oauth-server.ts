/** The OAuth provider's API routes (docs/oauth-provider.md). */
import {
  OAuthAuthorizeAnswer,
  OAuthConsentAnswer,
  OAuthIntrospection,
  OAuthMetadata,
  OAuthRevokeAnswer,
  OAuthTokenAnswer,
  OAuthTokenForm,
  OAuthTokenOnlyForm,
  OAuthUserinfo,
} from '../http/responses/oauth-server.js';
import { oauthAuthorizeBody, oauthConsentBody } from '../routes/oauth-server.js';
import { op, type Operation } from './operation.js';

const RFC_ERRORS =
  'Errors are in the RFC format `{error, error_description}` (RFC 6749 §5.2), not the svc envelope: 400 `invalid_request`, `invalid_grant`, `unauthorized_client`, `unsupported_grant_type`, `invalid_scope`, `invalid_target`; 401 `invalid_client` (with `WWW-Authenticate: Basic` when Basic was tried). Answers carry `Cache-Control: no-store`. 404 `oauth_server_disabled` (envelope) while the provider is off.';

export const oauthServerOperations: Operation[] = [
  op('GET', '/oauth2/metadata', 'The provider metadata (RFC 8414, OpenID Connect Discovery)', 'none', OAuthMetadata, {
    errors: ['oauth_server_disabled'],
    description:
      'Built from `oauth_server.issuer`; the adapter serves it at `/.well-known/openid-configuration` and `/.well-known/oauth-authorization-server`. `registration_endpoint` only while dynamic registration is on.',
  }),
  op(
    'POST',
    '/oauth2/authorize',
    "Validate an authorization request and decide the browser's next step (adapter only)",
    'none',
    OAuthAuthorizeAnswer,
    {
      body: oauthAuthorizeBody,
      errors: ['oauth_server_disabled'],
      description:
        "The adapter sends the browser's query as `params` (a repeated parameter as an array) and the user's access token when there is a session. `action: error` (unknown client, unregistered redirect URI) is shown, never redirected; `redirect` carries the code or the RFC error with `state` and `iss` (RFC 9207); `login` the sign-in URL with `return_to`; `consent` what the consent page shows.",
    },
  ),
  op('POST', '/oauth2/consent', "The consent page's answer (adapter only)", 'access', OAuthConsentAnswer, {
    body: oauthConsentBody,
    errors: ['oauth_server_disabled', 'oauth_request_expired'],
    description:
      'Single use, 10 minutes, and only the svc session that saw the page; otherwise 400 `oauth_request_expired`. `deny` → `error=access_denied`.',
  }),
  op(
    'POST',
    '/oauth2/token',
    'Token endpoint: authorization_code (PKCE S256) and refresh_token',
    'none',
    OAuthTokenAnswer,
    {
      formBody: OAuthTokenForm,
      rfcErrors: [400, 401],
      errors: ['oauth_server_disabled'],
      description: `Client authentication: \`client_secret_basic\`, \`client_secret_post\` or \`none\` (public clients), the one the client registered. Refresh tokens rotate; a spent one revokes the grant. ${RFC_ERRORS}`,
    },
  ),
  op('GET', '/oauth2/userinfo', 'OpenID Connect userinfo (provider access token with openid)', 'none', OAuthUserinfo, {
    rfcErrors: [401, 403],
    errors: ['oauth_server_disabled'],
    description:
      'Bearer: a provider access token (`typ: at+jwt`) for the issuer with scope `openid`; svc session tokens are refused. 401 `invalid_token`, 403 `insufficient_scope` with `WWW-Authenticate: Bearer` (RFC 6750 §3.1).',
  }),
  op('POST', '/oauth2/userinfo', 'OpenID Connect userinfo (POST form)', 'none', OAuthUserinfo, {
    rfcErrors: [401, 403],
    errors: ['oauth_server_disabled'],
    description: 'As `GET /oauth2/userinfo`.',
  }),
  op('POST', '/oauth2/revoke', 'Revoke a refresh or access token (RFC 7009)', 'none', OAuthRevokeAnswer, {
    formBody: OAuthTokenOnlyForm,
    rfcErrors: [400, 401],
    errors: ['oauth_server_disabled'],
    description: `Either kind ends the whole grant. Unknown or another client's token: 200 all the same. ${RFC_ERRORS}`,
  }),
  op('POST', '/oauth2/introspect', 'Token state for confidential clients (RFC 7662)', 'none', OAuthIntrospection, {
    formBody: OAuthTokenOnlyForm,
    rfcErrors: [400, 401],
    errors: ['oauth_server_disabled'],
    description: `\`{active:false}\` for anything expired, revoked, foreign or unknown. Public clients are refused with 401 \`invalid_client\`. ${RFC_ERRORS}`,
  }),
];
