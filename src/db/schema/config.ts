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
