/**
 * Organization invitations (docs/contract-changes.md, "Organization
 * invitations replace direct add"): a manager invites an email address, and
 * the membership exists only once a user with that verified email accepts.
 * Re-exported by `src/db/schema.ts`.
 */
import { sql } from 'drizzle-orm';
import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { createdAt, ts } from './columns.js';
import { organizations } from './organizations.js';
import { users } from './users.js';

export const organizationInvitations = sqliteTable(
  'organization_invitations',
  {
    id: text().primaryKey(),
    organizationId: text()
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** Normalised (trimmed, lower-case), as `users.email`. */
    email: text().notNull(),
    roles: text({ mode: 'json' }).$type<string[]>().notNull().default(sql`'["member"]'`),
    scopes: text({ mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
    invitedByUserId: text().references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: ts().notNull(),
    acceptedAt: ts(),
    declinedAt: ts(),
    revokedAt: ts(),
    acceptedByUserId: text().references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [
    index('organization_invitations_organization_id_idx').on(t.organizationId),
    index('organization_invitations_email_idx').on(t.email),
    // At most one unresolved invitation per (organization, email): a re-invite refreshes it.
    uniqueIndex('organization_invitations_pending_unique')
      .on(t.organizationId, t.email)
      .where(sql`accepted_at IS NULL AND declined_at IS NULL AND revoked_at IS NULL`),
  ],
);

export type InvitationRow = typeof organizationInvitations.$inferSelect;
