/**
 * The OAuth provider's client management answers (docs/oauth-provider.md,
 * "Clients"). No shape has a secret field except the one-time `clientSecret`
 * of create and rotate (and `client_secret` of a dynamic registration).
 */
import * as z from 'zod/mini';

export const OAuthClient = z.object({
  /** The public `client_id`. */
  id: z.string(),
  name: z.string(),
  type: z.enum(['confidential', 'public']),
  redirectUris: z.array(z.string()),
  scopes: z.array(z.string()),
  grantTypes: z.array(z.string()),
  tokenEndpointAuthMethod: z.string(),
  clientUri: z.nullable(z.string()),
  /** `admin` (console, CLI, admin API) or `dynamic` (RFC 7591 registration). */
  registration: z.enum(['admin', 'dynamic']),
  skipConsent: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Last successful token request, or null. */
  lastUsedAt: z.nullable(z.string()),
});

export const OAuthClientListResponse = z.object({ clients: z.array(OAuthClient), total: z.number() });
export const OAuthClientResponse = z.object({ client: OAuthClient });
/** Create (confidential clients) and rotate: the secret, shown this once (`svc_cs_…`). */
export const OAuthClientWithSecretResponse = z.object({ client: OAuthClient, clientSecret: z.optional(z.string()) });

export const OAuthApp = z.object({
  client: z.object({
    id: z.string(),
    name: z.string(),
    clientUri: z.nullable(z.string()),
    registration: z.enum(['admin', 'dynamic']),
  }),
  /** The scopes consented to (or granted, for a first-party client that skips consent). */
  scopes: z.array(z.string()),
  /** When the remembered consent was last given; null for a client that skips consent. */
  consentedAt: z.nullable(z.string()),
  /** The newest authorization or token refresh of this user with this client, or null. */
  lastUsedAt: z.nullable(z.string()),
});
export const OAuthAppListResponse = z.object({ apps: z.array(OAuthApp), total: z.number() });
export const OAuthAppRevokedResponse = z.object({ message: z.string(), revokedGrants: z.number() });

/** RFC 7591 §3.2.1. */
export const OAuthRegistrationResponse = z.object({
  client_id: z.string(),
  client_secret: z.optional(z.string()),
  client_secret_expires_at: z.optional(z.number()),
  client_id_issued_at: z.number(),
  client_name: z.string(),
  redirect_uris: z.array(z.string()),
  grant_types: z.array(z.string()),
  response_types: z.array(z.string()),
  token_endpoint_auth_method: z.string(),
  scope: z.string(),
  client_uri: z.optional(z.string()),
});
