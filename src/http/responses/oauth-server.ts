/** The OAuth provider's answers (docs/oauth-provider.md): the adapter's private routes and the RFC endpoints. */
import * as z from 'zod/mini';

/** `POST /oauth2/authorize`: what the browser sees next. */
export const OAuthAuthorizeAnswer = z.union([
  z.object({ action: z.literal('error'), error: z.string(), error_description: z.string() }),
  z.object({ action: z.literal('redirect'), location: z.string() }),
  z.object({ action: z.literal('login'), location: z.string() }),
  z.object({
    action: z.literal('consent'),
    requestId: z.string(),
    client: z.object({
      id: z.string(),
      name: z.string(),
      clientUri: z.nullable(z.string()),
      registration: z.enum(['admin', 'dynamic']),
    }),
    scopes: z.array(z.object({ name: z.string(), description: z.string() })),
    resource: z.nullable(z.object({ uri: z.string(), name: z.string() })),
    user: z.object({ email: z.string() }),
  }),
]);

/** `POST /oauth2/consent`: the redirect back to the client (a code, or `error=access_denied`). */
export const OAuthConsentAnswer = z.object({ location: z.string() });

/** RFC 8414 §2 / OpenID Connect Discovery §3 (the fields svc fills; more may appear). */
export const OAuthMetadata = z.looseObject({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  userinfo_endpoint: z.string(),
  jwks_uri: z.string(),
  revocation_endpoint: z.string(),
  introspection_endpoint: z.string(),
  registration_endpoint: z.optional(z.string()),
  scopes_supported: z.array(z.string()),
  response_types_supported: z.array(z.string()),
  response_modes_supported: z.array(z.string()),
  grant_types_supported: z.array(z.string()),
  code_challenge_methods_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
  subject_types_supported: z.array(z.string()),
  id_token_signing_alg_values_supported: z.array(z.string()),
  claims_supported: z.array(z.string()),
  authorization_response_iss_parameter_supported: z.boolean(),
});

/** RFC 6749 §5.1 (+ OpenID Connect Core §3.1.3.3 `id_token`). */
export const OAuthTokenAnswer = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().check(z.int()),
  scope: z.string(),
  id_token: z.optional(z.string()),
  refresh_token: z.optional(z.string()),
});

/** OpenID Connect Core §5.3.2: `sub` and the claims of the granted scopes. */
export const OAuthUserinfo = z.looseObject({
  sub: z.string(),
  email: z.optional(z.string()),
  email_verified: z.optional(z.boolean()),
  phone_number: z.optional(z.string()),
  phone_number_verified: z.optional(z.boolean()),
  updated_at: z.optional(z.number()),
});

/** RFC 7009 §2.2: an empty object, whatever became of the token. */
export const OAuthRevokeAnswer = z.object({});

/** RFC 7662 §2.2: `{active: false}` alone, or the token's facts. */
export const OAuthIntrospection = z.looseObject({
  active: z.boolean(),
  token_type: z.optional(z.string()),
  client_id: z.optional(z.string()),
  sub: z.optional(z.string()),
  aud: z.optional(z.string()),
  scope: z.optional(z.string()),
  iss: z.optional(z.string()),
  exp: z.optional(z.number()),
  iat: z.optional(z.number()),
  jti: z.optional(z.string()),
});

/** The form fields of the token endpoint (RFC 6749 §4.1.3, §6; RFC 8707 §2.2). */
export const OAuthTokenForm = z.object({
  grant_type: z.enum(['authorization_code', 'refresh_token']),
  code: z.optional(z.string()),
  redirect_uri: z.optional(z.string()),
  code_verifier: z.optional(z.string()),
  refresh_token: z.optional(z.string()),
  scope: z.optional(z.string()),
  resource: z.optional(z.string()),
  client_id: z.optional(z.string()),
  client_secret: z.optional(z.string()),
});

/** RFC 7009 §2.1 / RFC 7662 §2.1. */
export const OAuthTokenOnlyForm = z.object({
  token: z.string(),
  token_type_hint: z.optional(z.enum(['access_token', 'refresh_token'])),
  client_id: z.optional(z.string()),
  client_secret: z.optional(z.string()),
});

/** RFC 6749 §5.2 / RFC 6750 §3.1 / RFC 7009 / RFC 7662 error answer. */
export const OAuthErrorBody = z.object({ error: z.string(), error_description: z.optional(z.string()) });
