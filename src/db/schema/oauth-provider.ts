/**
 * svc as an OAuth 2.1 / OpenID Connect provider (docs/oauth-provider.md): the
 * clients that sign in through svc, the authorization requests waiting for
 * consent, remembered consents, grants (one per authorization, the unit that
 * revocation and refresh-token reuse end), single-use authorization codes and
 * rotated refresh tokens. Secrets, codes and refresh tokens are stored only as
 * hashes. Re-exported by `src/db/schema.ts`.
 */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { createdAt, ts, updatedAt } from './columns.js';
import { users } from './users.js';

export const oauthClients = sqliteTable(
  'oauth_clients',
  {
    /** The public `client_id` (random, URL-safe). */
    id: text().primaryKey(),
    name: text().notNull(),
    /** `confidential` (has a secret) or `public` (PKCE only, e.g. a native app or an MCP client). */
    type: text({ enum: ['confidential', 'public'] }).notNull(),
    /** Hex SHA-256 of the secret (256 random bits, so a fast hash is enough); null for public clients. */
    secretHash: text(),
    /** `client_secret_basic`, `client_secret_post` or `none` (RFC 7591 §2). */
    tokenEndpointAuthMethod: text().notNull(),
    /** JSON array of exact redirect URIs. */
    redirectUris: text({ mode: 'json' }).$type<string[]>().notNull(),
    /** JSON array of the scopes this client may ask for. */
    scopes: text({ mode: 'json' }).$type<string[]>().notNull(),
    /** JSON array of `authorization_code`, `refresh_token`. */
    grantTypes: text({ mode: 'json' }).$type<string[]>().notNull(),
    clientUri: text(),
    /** `admin` (created by an administrator or the CLI) or `dynamic` (RFC 7591 registration). */
    registration: text({ enum: ['admin', 'dynamic'] }).notNull(),
    /** First-party clients an administrator marked as not needing the consent page. */
    skipConsent: integer({ mode: 'boolean' }).notNull().default(false),
    createdBy: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /** Last successful token request; dynamic clients unused for long expire (maintenance). */
    lastUsedAt: ts(),
    disabledAt: ts(),
  },
  (t) => [index('oauth_clients_registration_idx').on(t.registration, t.lastUsedAt)],
);

/** An authorization request that passed validation and waits for the signed-in user's consent. */
export const oauthAuthorizationRequests = sqliteTable(
  'oauth_authorization_requests',
  {
    id: text().primaryKey(),
    clientId: text()
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The svc session (`sid`) that saw the consent page: only it may answer. */
    sessionId: text().notNull(),
    /** The validated request: redirect URI, scope, state, PKCE challenge, nonce, resource, prompt, max age. */
    params: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    expiresAt: ts().notNull(),
  },
  (t) => [
    index('oauth_authorization_requests_expires_idx').on(t.expiresAt),
    // Deleting a client cascades here (migration 0013_oauth_clients).
    index('oauth_authorization_requests_client_idx').on(t.clientId),
  ],
);

/** Consent a user gave a client, remembered per client for the scope set granted (space-separated, sorted). */
export const oauthConsents = sqliteTable(
  'oauth_consents',
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientId: text()
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    scope: text().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /**
     * JSON array of the RFC 8707 resources consented to for this client (migration `0012_oauth_core`); null = none
     * yet. A request for a resource outside it shows the consent page again.
     */
    resources: text({ mode: 'json' }).$type<string[]>(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.clientId] }), index('oauth_consents_client_idx').on(t.clientId)],
);

/** One authorization: what a code, its tokens and their refresh chain share, revoked as a unit. */
export const oauthGrants = sqliteTable(
  'oauth_grants',
  {
    id: text().primaryKey(),
    clientId: text()
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The svc session the user authorized from (ID token `sid`); the grant outlives it only with `offline_access`. */
    sessionId: text(),
    scope: text().notNull(),
    /** RFC 8707 resource the access tokens are for; null = the provider's own userinfo. */
    resource: text(),
    authTime: ts().notNull(),
    acr: text(),
    /** JSON array of RFC 8176 methods. */
    amr: text({ mode: 'json' }).$type<string[]>(),
    createdAt: createdAt(),
    revokedAt: ts(),
    /** `user`, `admin`, `client`, `code_replay`, `refresh_reuse`, `consent_revoked`. */
    revokedReason: text(),
  },
  (t) => [index('oauth_grants_user_idx').on(t.userId), index('oauth_grants_client_idx').on(t.clientId)],
);

/** Authorization codes: single use, short-lived, only the hash stored. */
export const oauthCodes = sqliteTable(
  'oauth_codes',
  {
    /** Hex SHA-256 of the code. */
    codeHash: text().primaryKey(),
    grantId: text()
      .notNull()
      .references(() => oauthGrants.id, { onDelete: 'cascade' }),
    redirectUri: text().notNull(),
    /** RFC 7636 S256 challenge (base64url). */
    codeChallenge: text().notNull(),
    nonce: text(),
    createdAt: createdAt(),
    expiresAt: ts().notNull(),
    /** Set once by the conditional UPDATE that redeems it; a second redemption revokes the grant. */
    usedAt: ts(),
  },
  (t) => [
    index('oauth_codes_expires_idx').on(t.expiresAt),
    // Revoking a grant deletes its codes, and deleting a grant cascades here (migration 0013_oauth_clients).
    index('oauth_codes_grant_idx').on(t.grantId),
  ],
);

/** Refresh tokens, rotated on every use; presenting a used one revokes the whole grant. */
export const oauthRefreshTokens = sqliteTable(
  'oauth_refresh_tokens',
  {
    id: text().primaryKey(),
    grantId: text()
      .notNull()
      .references(() => oauthGrants.id, { onDelete: 'cascade' }),
    /** Hex SHA-256 of the token (256 random bits). */
    tokenHash: text().notNull(),
    createdAt: createdAt(),
    expiresAt: ts().notNull(),
    usedAt: ts(),
  },
  (t) => [
    uniqueIndex('oauth_refresh_tokens_hash_idx').on(t.tokenHash),
    index('oauth_refresh_tokens_grant_idx').on(t.grantId),
  ],
);

export type OAuthClientRow = typeof oauthClients.$inferSelect;
export type OAuthAuthorizationRequestRow = typeof oauthAuthorizationRequests.$inferSelect;
export type OAuthConsentRow = typeof oauthConsents.$inferSelect;
export type OAuthGrantRow = typeof oauthGrants.$inferSelect;
export type OAuthCodeRow = typeof oauthCodes.$inferSelect;
export type OAuthRefreshTokenRow = typeof oauthRefreshTokens.$inferSelect;
