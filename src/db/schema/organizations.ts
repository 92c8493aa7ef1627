/**
 * Organizations and their members (`organization_memberships`: a user's
 * roles and scopes in one organization). Re-exported by `src/db/schema.ts`.
 */
import { sql } from 'drizzle-orm';
import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { createdAt, updatedAt } from './columns.js';
import { users } from './users.js';

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

export type OrganizationRow = typeof organizations.$inferSelect;
export type MembershipRow = typeof organizationMemberships.$inferSelect;
