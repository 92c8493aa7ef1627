/**
 * Sessions and single-use tokens: refresh-token sessions (`sessions`, one
 * chain per sign-in), magic-link tokens, one-time codes (`otp_codes`) and the
 * OAuth states already consumed. Re-exported by `src/db/schema.ts`.
 */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { createdAt, ts, updatedAt } from './columns.js';
import { organizations } from './organizations.js';
import { users } from './users.js';

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
    /**
     * A coarse place (`Paris, FR`) of the request that created this row (sign-in or refresh), from a
     * trusted source only (docs/devices.md); null when the deployment does not know it.
     */
    place: text(),
    lastUsedAt: ts(),
    expiresAt: ts().notNull(),
    idleExpiresAt: ts().notNull(),
    stepUpVerifiedAt: ts(),
    stepUpMethod: text(),
    /**
     * When the user signed in (RFC 9470 `auth_time`); copied along the chain. Null on sessions from before it existed.
     */
    authTime: ts(),
    /** The sign-in method (`IssueMethod`), the source of the token's `amr`; copied along the chain. */
    authMethod: text(),
    replacedBySessionId: text(),
    /**
     * Hex SHA-256 of the `Idempotency-Key` the refresh that rotated this row carried
     * (null without one): only a replay with the same key may get the retry answer.
     */
    refreshIdempotencyKeyHash: text(),
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
    /**
     * `magic_link_confirmation` at request time. Rows from before the
     * column get `none`: they were issued under the original flow.
     */
    confirmation: text({ enum: ['number_match', 'same_device', 'none'] })
      .notNull()
      .default('none'),
    /** number_match: the 2-digit number the asking tab shows. Stored as is: 90 values, a hash would not hide it. */
    confirmationNumber: integer(),
    /** same_device: b64url(SHA-256) of the asker's 32-byte binding. */
    bindingHash: text(),
    /** Set with `used_at` by a wrong number: the link is spent and the poll never issues a session. */
    refusedAt: ts(),
    /** What asked: `{browser, os, place, at}` (never the raw UA). */
    requestedBy: text({ mode: 'json' }).$type<{ browser: string; os: string; place: string | null; at: string }>(),
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

export type SessionRow = typeof sessions.$inferSelect;
