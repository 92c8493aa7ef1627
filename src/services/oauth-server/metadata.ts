/**
 * The discovery document (RFC 8414 §2, OpenID Connect Discovery §3), built
 * from `oauth_server`; the adapter serves it at both well-known paths.
 * `registration_endpoint` appears only while dynamic registration is on.
 */
import { STANDARD_SCOPES } from '../../config/oauth-server.js';
import type { EnabledOAuthServer } from './config.js';

export function providerMetadata(cfg: EnabledOAuthServer): Record<string, unknown> {
  const at = (path: string) => `${cfg.issuer}${path}`;
  const scopes = new Set<string>([
    ...STANDARD_SCOPES,
    ...cfg.scopes.map((s) => s.name),
    ...cfg.resources.flatMap((r) => r.scopes),
  ]);
  return {
    issuer: cfg.issuer,
    authorization_endpoint: at('/oauth2/authorize'),
    token_endpoint: at('/oauth2/token'),
    userinfo_endpoint: at('/oauth2/userinfo'),
    jwks_uri: at('/.well-known/jwks.json'),
    revocation_endpoint: at('/oauth2/revoke'),
    introspection_endpoint: at('/oauth2/introspect'),
    ...(cfg.dynamicRegistration.enabled ? { registration_endpoint: at('/oauth2/register') } : {}),
    scopes_supported: [...scopes],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    claims_supported: [
      'iss',
      'sub',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'acr',
      'amr',
      'azp',
      'sid',
      'email',
      'email_verified',
      'phone_number',
      'phone_number_verified',
      'updated_at',
    ],
    prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
    authorization_response_iss_parameter_supported: true,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
  };
}
