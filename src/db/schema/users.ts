/**
 * Users and what they sign in with: the `users` table, their passkeys
 * (`credentials`) and the WebAuthn challenges issued for them, linked OAuth
 * identities and TOTP authenticators. Re-exported by `src/db/schema.ts`.
 */
import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { createdAt, ts, updatedAt } from './columns.js';

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
    uniqueIndex('totp_credentials_one_enabled_per_user').on(t.userId).where(sql`enabled = 1`),
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
    context: text({ mode: 'json' }).$type<{
      requirePrf?: boolean;
      prfRequested?: boolean;
      credentialId?: string;
    } | null>(),
    expiresAt: ts().notNull(),
    consumedAt: ts(),
    createdAt: createdAt(),
  },
  (t) => [
    index('webauthn_challenges_user_purpose_idx').on(t.userId, t.purpose),
    index('webauthn_challenges_expires_at_idx').on(t.expiresAt),
  ],
);

export type UserRow = typeof users.$inferSelect;
export type CredentialRow = typeof credentials.$inferSelect;
export type TotpCredentialRow = typeof totpCredentials.$inferSelect;
