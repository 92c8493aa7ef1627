/**
 * Wire shapes of organization invitations (docs/contract-changes.md, "Organization invitations replace direct add").
 */
import { toIso } from '../clock.js';
import type { InvitationRow } from '../db/schema.js';
import { invitationStatus } from '../repositories/organization-invitations.js';

/** The manager's view (create, list). Nothing in it depends on whether an account exists for `email`. */
export function invitationJson(row: InvitationRow, nowMs: number) {
  return {
    id: row.id,
    organizationId: row.organizationId,
    email: row.email,
    roles: row.roles,
    scopes: row.scopes,
    status: invitationStatus(row, nowMs),
    invitedByUserId: row.invitedByUserId,
    createdAt: toIso(row.createdAt)!,
    expiresAt: toIso(row.expiresAt)!,
    acceptedAt: toIso(row.acceptedAt),
    declinedAt: toIso(row.declinedAt),
    revokedAt: toIso(row.revokedAt),
    acceptedByUserId: row.acceptedByUserId,
  };
}

/**
 * The invitee's view: which organization, what it grants, and who asked (the
 * inviter's email, which the inviter shares with the people they invite).
 */
export function receivedInvitationJson(r: {
  invitation: InvitationRow;
  organization: { id: string; name: string; slug: string };
  inviterEmail: string | null;
}) {
  return {
    id: r.invitation.id,
    organization: r.organization,
    roles: r.invitation.roles,
    scopes: r.invitation.scopes,
    invitedBy: r.inviterEmail ? { email: r.inviterEmail } : null,
    expiresAt: toIso(r.invitation.expiresAt)!,
    createdAt: toIso(r.invitation.createdAt)!,
  };
}
