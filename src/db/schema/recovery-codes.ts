/**
 * Recovery codes (docs/recovery-codes.md): ten one-time codes a user with TOTP
 * or a passkey keeps for the day they lose it. Only a hash of each code is
 * stored; `used_at` is set once, by the one conditional UPDATE that spends it.
 * Re-exported by `src/db/schema.ts`.
 */
import { index, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { createdAt, ts } from './columns.js';
import { users } from './users.js';

export const recoveryCodes = sqliteTable(
  'recovery_codes',
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Hex SHA-256 of the user id and the normalised code (services/recovery-codes/codes.ts). */
    codeHash: text().notNull(),
    /** Null while the code is unused. */
    usedAt: ts(),
    createdAt: createdAt(),
  },
  (t) => [index('recovery_codes_user_id_idx').on(t.userId)],
);

export type RecoveryCodeRow = typeof recoveryCodes.$inferSelect;
