/**
 * Email and phone changes (docs/contact-change.md): one row per change. A
 * pending row holds the keyed hash of the code sent to the new address (never
 * the code), its expiry and wrong attempts; once completed it holds the hash
 * of the report token the old address was sent, so its owner can end every
 * session. Re-exported by `src/db/schema.ts`.
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { createdAt, ts } from './columns.js';
import { users } from './users.js';

export const contactChanges = sqliteTable(
  'contact_changes',
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    channel: text().$type<'email' | 'phone'>().notNull(),
    /** The address before the change (null: the account had no phone). */
    oldValue: text(),
    /** Normalised as at sign-up (services/contact/normalize.ts). */
    newValue: text().notNull(),
    /** `hmac-sha256:<hex>` of the code; empty for an admin change (no code). */
    codeHash: text().notNull(),
    attempts: integer().notNull().default(0),
    expiresAt: ts().notNull(),
    /** Who asked: the user themself, or the admin of an admin change. */
    requestedByUserId: text(),
    completedAt: ts(),
    /** sha256 hex of the report token sent to the old address; set on completion. */
    reportTokenHash: text(),
    reportExpiresAt: ts(),
    reportedAt: ts(),
    createdAt: createdAt(),
  },
  (t) => [
    index('contact_changes_user_channel_idx').on(t.userId, t.channel),
    index('contact_changes_report_token_idx').on(t.reportTokenHash),
    index('contact_changes_created_at_idx').on(t.createdAt),
  ],
);

export type ContactChangeRow = typeof contactChanges.$inferSelect;
