/** Drizzle queries on `organizations` and `organization_memberships`. No business rules here. */
import { and, asc, count, desc, eq, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { fastAll, type BatchRead } from '../db/driver/fast-get.js';
import { prepared } from '../db/driver/prepared.js';
import {
  organizationMemberships,
  organizations,
  sessions,
  users,
  type MembershipRow,
  type OrganizationRow,
} from '../db/schema.js';

export async function findOrganization(db: Db, id: string): Promise<OrganizationRow | null> {
  const [row] = await db.select().from(organizations).where(eq(organizations.id, id));
  return row ?? null;
}

export async function findMembership(db: Db, organizationId: string, userId: string): Promise<MembershipRow | null> {
  const [row] = await db
    .select()
    .from(organizationMemberships)
    .where(and(eq(organizationMemberships.organizationId, organizationId), eq(organizationMemberships.userId, userId)));
  return row ?? null;
}

// `/users/me` reads it on every call: prepared once (src/db/driver/prepared.ts).
const ofUser = prepared((db) =>
  fastAll(
    db
      .select({ organization: organizations, membership: organizationMemberships })
      .from(organizationMemberships)
      .innerJoin(organizations, eq(organizations.id, organizationMemberships.organizationId))
      .where(eq(organizationMemberships.userId, sql.placeholder('userId')))
      .orderBy(asc(organizationMemberships.createdAt), asc(organizationMemberships.id))
      .prepare(),
  ),
);

/** The user's memberships with their organizations, oldest first (§3.7 picks the oldest). */
export async function listUserOrganizations(
  db: Db,
  userId: string,
): Promise<{ organization: OrganizationRow; membership: MembershipRow }[]> {
  return ofUser(db).all({ userId });
}

/** `listUserOrganizations` as one read of a batch (src/db/driver/read-together.ts). */
export function userOrganizationsRead(
  db: Db,
  userId: string,
): BatchRead<{ organization: OrganizationRow; membership: MembershipRow }[]> {
  return ofUser(db).read({ userId });
}

/** Slugs equal to `base` or of the form `base-<n>` (collision suffixes, §2.4). */
export async function slugsLike(db: Db, base: string): Promise<string[]> {
  const escaped = base.replace(/[\\%_]/g, (m) => `\\${m}`);
  const rows = await db
    .select({ slug: organizations.slug })
    .from(organizations)
    .where(or(eq(organizations.slug, base), sql`${organizations.slug} LIKE ${`${escaped}-%`} ESCAPE '\\'`));
  return rows.map((r) => r.slug);
}

export async function memberCount(db: Db, organizationId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(organizationMemberships)
    .where(eq(organizationMemberships.organizationId, organizationId));
  return row?.n ?? 0;
}

export async function listMembers(db: Db, organizationId: string, page: { limit: number; offset: number }) {
  const where = eq(organizationMemberships.organizationId, organizationId);
  const [rows, [total]] = await Promise.all([
    db
      .select({ membership: organizationMemberships, user: { id: users.id, email: users.email } })
      .from(organizationMemberships)
      .innerJoin(users, eq(users.id, organizationMemberships.userId))
      .where(where)
      .orderBy(asc(organizationMemberships.createdAt), asc(organizationMemberships.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(organizationMemberships).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** Admin listing with member counts (one grouped subquery, no per-row queries). */
export async function listOrganizations(db: Db, q: { limit: number; offset: number; search?: string }) {
  const where = q.search
    ? or(
        sql`instr(lower(${organizations.name}), ${q.search.toLowerCase()}) > 0`,
        sql`instr(${organizations.slug}, ${q.search.toLowerCase()}) > 0`,
      )
    : undefined;
  const counts = db
    .select({ organizationId: organizationMemberships.organizationId, n: count().as('n') })
    .from(organizationMemberships)
    .groupBy(organizationMemberships.organizationId)
    .as('counts');
  const [rows, [total]] = await Promise.all([
    db
      .select({ organization: organizations, memberCount: sql<number>`coalesce(${counts.n}, 0)` })
      .from(organizations)
      .leftJoin(counts, eq(counts.organizationId, organizations.id))
      .where(where)
      .orderBy(desc(organizations.createdAt), desc(organizations.id))
      .limit(q.limit)
      .offset(q.offset),
    db.select({ n: count() }).from(organizations).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** SQL: does this membership row hold the `owner` role? */
export const holdsOwner = (rolesColumn = organizationMemberships.roles) =>
  sql`EXISTS (SELECT 1 FROM json_each(${rolesColumn}) AS r WHERE r.value = 'owner')`;

/** SQL: another membership of the same organization holds `owner`. */
const otherOwnerExists = (organizationId: string, userId: string) =>
  sql`EXISTS (SELECT 1 FROM organization_memberships AS o WHERE o.organization_id = ${organizationId} AND o.user_id <> ${userId} AND EXISTS (SELECT 1 FROM json_each(o.roles) AS orr WHERE orr.value = 'owner'))`;

/**
 * Updates a membership in one conditional statement: when the new roles drop
 * `owner`, the update applies only if another owner remains (§3.14 last-owner
 * rule, race-free). Returns 'updated', 'missing' or 'last_owner'.
 */
export async function updateMembershipGuarded(
  db: Db,
  organizationId: string,
  userId: string,
  set: { roles: string[]; scopes: string[] },
  nowMs: number,
): Promise<'updated' | 'missing' | 'last_owner'> {
  const keepsOwner = set.roles.includes('owner');
  const res = await db
    .update(organizationMemberships)
    .set({ roles: set.roles, scopes: set.scopes, updatedAt: new Date(nowMs) })
    .where(
      and(
        eq(organizationMemberships.organizationId, organizationId),
        eq(organizationMemberships.userId, userId),
        keepsOwner ? undefined : sql`(NOT ${holdsOwner()} OR ${otherOwnerExists(organizationId, userId)})`,
      ),
    );
  if (res.rowsAffected > 0) return 'updated';
  return (await findMembership(db, organizationId, userId)) ? 'last_owner' : 'missing';
}

/** Deletes a membership unless it is the last owner; clears that org as the user's active one. */
export async function deleteMembershipGuarded(
  db: Db,
  organizationId: string,
  userId: string,
  nowMs: number,
): Promise<'deleted' | 'missing' | 'last_owner'> {
  const [res] = await db.batch([
    db
      .delete(organizationMemberships)
      .where(
        and(
          eq(organizationMemberships.organizationId, organizationId),
          eq(organizationMemberships.userId, userId),
          sql`(NOT ${holdsOwner()} OR ${otherOwnerExists(organizationId, userId)})`,
        ),
      ),
    // Runs only once the membership is gone, so a refused removal changes nothing.
    db
      .update(sessions)
      .set({ organizationId: null, updatedAt: new Date(nowMs) })
      .where(
        and(
          eq(sessions.userId, userId),
          eq(sessions.organizationId, organizationId),
          sql`NOT EXISTS (SELECT 1 FROM organization_memberships AS m WHERE m.organization_id = ${organizationId} AND m.user_id = ${userId})`,
        ),
      ),
  ]);
  if (res.rowsAffected > 0) return 'deleted';
  return (await findMembership(db, organizationId, userId)) ? 'last_owner' : 'missing';
}

export async function deleteOrganizationRow(db: Db, id: string): Promise<boolean> {
  const res = await db.delete(organizations).where(eq(organizations.id, id));
  return res.rowsAffected > 0;
}
