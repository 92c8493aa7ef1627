/** Drizzle queries on `organization_invitations`. No business rules here. */
import { and, asc, count, desc, eq, gt, isNull, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { organizationInvitations as inv, organizations, users, type InvitationRow } from '../db/schema.js';

export type InvitationStatus = 'pending' | 'accepted' | 'declined' | 'revoked' | 'expired';

/** Not yet accepted, declined or revoked (expired rows are still unresolved: a re-invite revives them). */
const unresolved = and(isNull(inv.acceptedAt), isNull(inv.declinedAt), isNull(inv.revokedAt))!;
/** Unresolved and unexpired at `nowMs`: the only state that can be accepted or declined. */
const pendingAt = (nowMs: number) => and(unresolved, gt(inv.expiresAt, new Date(nowMs)))!;

/** Partial-index predicate of `organization_invitations_pending_unique`, spelled as in the migration. */
const PENDING_INDEX_WHERE = sql`accepted_at IS NULL AND declined_at IS NULL AND revoked_at IS NULL`;

export function invitationStatus(row: InvitationRow, nowMs: number): InvitationStatus {
  if (row.revokedAt) return 'revoked';
  if (row.acceptedAt) return 'accepted';
  if (row.declinedAt) return 'declined';
  return row.expiresAt.getTime() > nowMs ? 'pending' : 'expired';
}

/**
 * Inserts the invitation, or refreshes the unresolved one for the same
 * (organization, email): new roles, scopes, inviter and expiry, same id.
 */
export async function upsertInvitation(
  db: Db,
  row: Omit<InvitationRow, 'acceptedAt' | 'declinedAt' | 'revokedAt' | 'acceptedByUserId'>,
): Promise<InvitationRow> {
  const [saved] = await db
    .insert(inv)
    .values(row)
    .onConflictDoUpdate({
      target: [inv.organizationId, inv.email],
      targetWhere: PENDING_INDEX_WHERE,
      set: { roles: row.roles, scopes: row.scopes, invitedByUserId: row.invitedByUserId, expiresAt: row.expiresAt },
    })
    .returning();
  return saved!;
}

/** An organization's invitations: pending first, then newest first. */
export async function listOrganizationInvitations(
  db: Db,
  organizationId: string,
  page: { limit: number; offset: number },
  nowMs: number,
) {
  const where = eq(inv.organizationId, organizationId);
  const pendingFirst: SQL = sql`CASE WHEN ${pendingAt(nowMs)} THEN 0 ELSE 1 END`;
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(inv)
      .where(where)
      .orderBy(asc(pendingFirst), desc(inv.createdAt), desc(inv.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(inv).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** At most this many pending invitations are listed for one address (newest first): invitations are sent by others. */
export const RECEIVED_INVITATIONS_LIMIT = 100;

/** Pending, unexpired invitations addressed to `email`, with their organization and inviter's email. */
export async function listPendingForEmail(db: Db, email: string, nowMs: number) {
  return db
    .select({
      invitation: inv,
      organization: { id: organizations.id, name: organizations.name, slug: organizations.slug },
      inviterEmail: users.email,
    })
    .from(inv)
    .innerJoin(organizations, eq(organizations.id, inv.organizationId))
    .leftJoin(users, eq(users.id, inv.invitedByUserId))
    .where(and(eq(inv.email, email), pendingAt(nowMs)))
    .orderBy(desc(inv.createdAt), desc(inv.id))
    .limit(RECEIVED_INVITATIONS_LIMIT);
}

export async function findInvitation(db: Db, id: string): Promise<InvitationRow | null> {
  const [row] = await db.select().from(inv).where(eq(inv.id, id));
  return row ?? null;
}

/**
 * Accepts a pending invitation addressed to `email` in one batch (one
 * transaction): the membership is inserted from the invitation row only while
 * it is pending (an existing membership is kept as it is), then the invitation
 * is marked accepted. Of two racing accepts the second sees a resolved
 * invitation, so it inserts nothing and updates nothing.
 */
export async function acceptInvitationRow(
  db: Db,
  a: { id: string; email: string; userId: string; membershipId: string; nowMs: number },
) {
  const pending = sql`i.id = ${a.id} AND i.email = ${a.email} AND i.accepted_at IS NULL AND i.declined_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > ${a.nowMs}`;
  const [inserted, updated] = await db.batch([
    db.run(sql`INSERT INTO organization_memberships (id, organization_id, user_id, roles, scopes, created_at, updated_at)
      SELECT ${a.membershipId}, i.organization_id, ${a.userId}, i.roles, i.scopes, ${a.nowMs}, ${a.nowMs}
      FROM organization_invitations AS i WHERE ${pending}
      ON CONFLICT (organization_id, user_id) DO NOTHING`),
    db
      .update(inv)
      .set({ acceptedAt: new Date(a.nowMs), acceptedByUserId: a.userId })
      .where(and(eq(inv.id, a.id), eq(inv.email, a.email), pendingAt(a.nowMs))),
  ]);
  return { accepted: updated.rowsAffected > 0, membershipCreated: inserted.rowsAffected > 0 };
}

/** Declines a pending invitation addressed to `email`; false when there is none. */
export async function declineInvitationRow(
  db: Db,
  id: string,
  email: string,
  nowMs: number,
): Promise<InvitationRow | null> {
  const [row] = await db
    .update(inv)
    .set({ declinedAt: new Date(nowMs) })
    .where(and(eq(inv.id, id), eq(inv.email, email), pendingAt(nowMs)))
    .returning();
  return row ?? null;
}

/** Revokes an unresolved invitation of the organization (expired ones too); null when there is none. */
export async function revokeInvitationRow(
  db: Db,
  organizationId: string,
  id: string,
  nowMs: number,
): Promise<InvitationRow | null> {
  const [row] = await db
    .update(inv)
    .set({ revokedAt: new Date(nowMs) })
    .where(and(eq(inv.id, id), eq(inv.organizationId, organizationId), unresolved))
    .returning();
  return row ?? null;
}
