/**
 * Configuration kept in the database: runtime settings (`system_config`, one
 * JSON value per key) and the token signing keys. Re-exported by
 * `src/db/schema.ts`.
 */
import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { createdAt, updatedAt } from './columns.js';
import { users } from './users.js';

export const systemConfig = sqliteTable('system_config', {
  key: text().primaryKey(),
  value: text({ mode: 'json' }).$type<unknown>().notNull(),
  updatedBy: text().references(() => users.id, { onDelete: 'set null' }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const signingKeys = sqliteTable('signing_keys', {
  kid: text().primaryKey(),
  privatePem: text().notNull(),
  publicPem: text().notNull(),
  createdAt: createdAt(),
});

/**
 * Secrets a development instance generates for itself when the operator set
 * none (`API_SERVICE_TOKEN` outside production): random per database, never a
 * constant in the source. Production never reads this table.
 */
export const developmentSecrets = sqliteTable('development_secrets', {
  name: text().primaryKey(),
  value: text().notNull(),
  createdAt: createdAt(),
});
