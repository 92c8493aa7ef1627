/**
 * Every table of contract §2. SQL names are snake_case (drizzle `casing`),
 * TS properties are their camelCase form. Timestamps are epoch milliseconds.
 */
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const ts = (name?: string) => (name ? integer(name, { mode: 'timestamp_ms' }) : integer({ mode: 'timestamp_ms' }));
const createdAt = () => ts().notNull();
const updatedAt = () => ts().notNull();

export const users = sqliteTable(
  'users',
  {
    id: text().primaryKey(),
    email: text().notNull(),
    phone: text(),
    roles: text({ mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
    verified: integer({ mode: 'boolean' }).notNull().default(false),
    emailVerified: integer({ mode: 'boolean' }).notNull().default(false),
    phoneVerified: integer({ mode: 'boolean' }).notNull().default(false),
    revoked: integer({ mode: 'boolean' }).notNull().default(false),
    lastLoginAt: ts(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('users_email_unique').on(t.email),
    uniqueIndex('users_phone_unique').on(t.phone),
    index('users_created_at_idx').on(t.createdAt),
  ],
);

export const credentials = sqliteTable(
  'credentials',
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    publicKey: text().notNull(),
    counter: integer().notNull().default(0),
    transports: text({ mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
    deviceType: text().notNull(),
    backedUp: integer({ mode: 'boolean' }).notNull().default(false),
    prfCapable: integer({ mode: 'boolean' }).notNull().default(false),
    aaguid: text(),
    attestationFormat: text(),
    friendlyName: text(),
    platform: text(),
    browser: text(),
    deviceInfo: text(),
    lastUsedAt: ts(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('credentials_user_id_idx').on(t.userId)],
);

export const organizations = sqliteTable(
  'organizations',
  {
    id: text().primaryKey(),
    name: text().notNull(),
    slug: text().notNull(),
    createdByUserId: text().references(() => users.id, { onDelete: 'set null' }),
    metadata: text({ mode: 'json' }).$type<Record<string, unknown> | null>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('organizations_slug_unique').on(t.slug)],
);

export const organizationMemberships = sqliteTable(
  'organization_memberships',
  {
    id: text().primaryKey(),
    organizationId: text()
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    roles: text({ mode: 'json' }).$type<string[]>().notNull().default(sql`'["member"]'`),
    scopes: text({ mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('organization_memberships_org_user_unique').on(t.organizationId, t.userId),
    index('organization_memberships_user_id_idx').on(t.userId),
  ],
);

export const sessions = sqliteTable(
  'sessions',
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    chainId: text().notNull(),
    infraId: text(),
    organizationId: text().references(() => organizations.id, { onDelete: 'set null' }),
    mode: text().notNull().default('server'),
    refreshTokenHash: text().notNull(),
    refreshTokenLookup: text().notNull(),
    userAgent: text(),
    ipAddress: text(),
    deviceName: text(),
    lastUsedAt: ts(),
    expiresAt: ts().notNull(),
    idleExpiresAt: ts().notNull(),
    stepUpVerifiedAt: ts(),
    stepUpMethod: text(),
    /** When the user signed in (RFC 9470 `auth_time`); copied along the chain. Null on sessions from before it existed. */
    authTime: ts(),
    /** The sign-in method (`IssueMethod`), the source of the token's `amr`; copied along the chain. */
    authMethod: text(),
    replacedBySessionId: text(),
    revokedAt: ts(),
    revokedReason: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('sessions_refresh_token_lookup_unique').on(t.refreshTokenLookup),
    index('sessions_user_id_idx').on(t.userId),
    index('sessions_chain_id_idx').on(t.chainId),
    index('sessions_expires_at_idx').on(t.expiresAt),
  ],
);

export const oauthIdentities = sqliteTable(
  'oauth_identities',
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    providerId: text().notNull(),
    providerSubject: text().notNull(),
    email: text(),
    profile: text({ mode: 'json' }).$type<{ email: string; name?: string }>().notNull(),
    lastLoginAt: ts(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('oauth_identities_provider_subject_unique').on(t.providerId, t.providerSubject),
    index('oauth_identities_user_id_idx').on(t.userId),
  ],
);

export const totpCredentials = sqliteTable(
  'totp_credentials',
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    secretCiphertext: text().notNull(),
    secretIv: text().notNull(),
    issuer: text().notNull(),
    accountName: text().notNull(),
    enabled: integer({ mode: 'boolean' }).notNull().default(false),
    verifiedAt: ts(),
    lastUsedAt: ts(),
    lastUsedCounter: integer(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('totp_credentials_one_enabled_per_user')
      .on(t.userId)
      .where(sql`enabled = 1`),
    index('totp_credentials_user_id_idx').on(t.userId),
    // Maintenance purges abandoned enrolments by age (services/maintenance.ts): without it, a full scan.
    index('totp_credentials_created_at_idx').on(t.createdAt),
  ],
);

export const webauthnChallenges = sqliteTable(
  'webauthn_challenges',
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text().$type<'registration' | 'authentication' | 'step_up'>().notNull(),
    challenge: text().notNull(),
    context: text({ mode: 'json' }).$type<{ requirePrf?: boolean; prfRequested?: boolean; credentialId?: string } | null>(),
    expiresAt: ts().notNull(),
    consumedAt: ts(),
    createdAt: createdAt(),
  },
  (t) => [
    index('webauthn_challenges_user_purpose_idx').on(t.userId, t.purpose),
    index('webauthn_challenges_expires_at_idx').on(t.expiresAt),
  ],
);

export const magicLinkTokens = sqliteTable(
  'magic_link_tokens',
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text().notNull(),
    redirectUrl: text(),
    ipHash: text().notNull(),
    userAgentHash: text().notNull(),
    expiresAt: ts().notNull(),
    usedAt: ts(),
    sessionIssuedAt: ts(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('magic_link_tokens_token_hash_unique').on(t.tokenHash),
    index('magic_link_tokens_user_id_idx').on(t.userId),
    index('magic_link_tokens_expires_at_idx').on(t.expiresAt),
  ],
);

export const otpCodes = sqliteTable(
  'otp_codes',
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    channel: text().$type<'email' | 'phone'>().notNull(),
    codeHash: text().notNull(),
    expiresAt: ts().notNull(),
    attempts: integer().notNull().default(0),
    createdAt: createdAt(),
  },
  // expires_at: the maintenance purge of expired codes reads by it.
  (t) => [primaryKey({ columns: [t.userId, t.channel] }), index('otp_codes_expires_at_idx').on(t.expiresAt)],
);

export const authEvents = sqliteTable(
  'auth_events',
  {
    id: text().primaryKey(),
    type: text().notNull(),
    userId: text().references(() => users.id, { onDelete: 'set null' }),
    actorUserId: text(),
    sessionId: text(),
    ipAddress: text(),
    userAgent: text(),
    metadata: text({ mode: 'json' }).$type<Record<string, unknown> | null>(),
    createdAt: createdAt(),
  },
  (t) => [
    index('auth_events_user_created_idx').on(t.userId, t.createdAt),
    index('auth_events_type_created_idx').on(t.type, t.createdAt),
    index('auth_events_created_at_idx').on(t.createdAt),
    index('auth_events_actor_user_id_idx').on(t.actorUserId),
  ],
);

export const authFailures = sqliteTable(
  'auth_failures',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    subject: text().notNull(),
    type: text().notNull(),
    occurredAt: ts().notNull(),
  },
  (t) => [
    index('auth_failures_subject_occurred_idx').on(t.subject, t.occurredAt),
    // The maintenance purge removes failures older than the window by time alone.
    index('auth_failures_occurred_at_idx').on(t.occurredAt),
  ],
);

export const lockouts = sqliteTable(
  'lockouts',
  {
    subject: text().primaryKey(),
    lockedAt: ts().notNull(),
    lockedUntil: ts().notNull(),
    failureCount: integer().notNull(),
  },
  (t) => [index('lockouts_locked_until_idx').on(t.lockedUntil)],
);

export const systemConfig = sqliteTable('system_config', {
  key: text().primaryKey(),
  value: text({ mode: 'json' }).$type<unknown>().notNull(),
  updatedBy: text().references(() => users.id, { onDelete: 'set null' }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const rateLimitCounters = sqliteTable(
  'rate_limit_counters',
  {
    key: text().primaryKey(),
    windowStart: integer().notNull(),
    count: integer().notNull(),
    expiresAt: integer().notNull(),
  },
  (t) => [index('rate_limit_counters_expires_at_idx').on(t.expiresAt)],
);

export const oauthConsumedStates = sqliteTable(
  'oauth_consumed_states',
  {
    stateId: text().primaryKey(),
    providerId: text().notNull(),
    consumedAt: ts().notNull(),
    expiresAt: ts().notNull(),
  },
  (t) => [index('oauth_consumed_states_expires_at_idx').on(t.expiresAt)],
);

export const signingKeys = sqliteTable('signing_keys', {
  kid: text().primaryKey(),
  privatePem: text().notNull(),
  publicPem: text().notNull(),
  createdAt: createdAt(),
});

export type UserRow = typeof users.$inferSelect;
export type SessionRow = typeof sessions.$inferSelect;
export type CredentialRow = typeof credentials.$inferSelect;
export type OrganizationRow = typeof organizations.$inferSelect;
export type MembershipRow = typeof organizationMemberships.$inferSelect;
export type TotpCredentialRow = typeof totpCredentials.$inferSelect;
export type AuthEventRow = typeof authEvents.$inferSelect;
