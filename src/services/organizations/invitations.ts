/**
 * Organization invitations (docs/contract-changes.md, "Organization
 * invitations replace direct add"). A manager invites an email address; the
 * membership exists only once a signed-in user whose **verified** email is
 * that address accepts. Inviting never looks the address up, so its answer
 * says nothing about whether an account exists; accepting, declining and
 * listing someone else's invitation all look like "no such invitation".
 */
import { randomId } from '../../crypto/random.js';
import type { InvitationRow, MembershipRow, UserRow } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { fail } from '../../errors.js';
import type { ActorFields } from '../events/actor.js';
import {
  acceptInvitationRow,
  declineInvitationRow,
  findInvitation,
  listOrganizationInvitations,
  listPendingForEmail,
  revokeInvitationRow,
  upsertInvitation,
} from '../../repositories/organization-invitations.js';
import { findMembership } from '../../repositories/organizations.js';
import type { DispatchContext } from '../delivery/index.js';
import type { OrganizationInvitationPayload } from '../delivery/types.js';
import { loadAccess, requireAccessRight } from './access.js';
import { assertMemberRoles, assertOwnerChange, DEFAULT_MEMBER_ROLES } from './members.js';

/**
 * How long an invitation can be accepted; a re-invite starts a new period. The email renderings say "7 days"
 * (delivery/render.ts, common/messaging.ts).
 */
export const INVITATION_TTL_SECONDS = 7 * 86_400;

type InvitationDeps = Pick<Deps, 'db' | 'clock' | 'events' | 'config'>;

export const notFoundInvitation = () => fail('not_found', 'Invitation not found');

/** Where the email sends the invitee: the app's invitations page (no secret: acceptance needs the verified email). */
export function invitationUrl(origins: readonly string[], invitationId: string): string {
  const url = new URL(`${origins[0]!.replace(/\/+$/, '')}/invitations`);
  url.searchParams.set('invitation', invitationId);
  return url.toString();
}

export interface InviteInput {
  email: string;
  roles?: string[];
  scopes?: string[];
}

export interface InviteResult {
  invitation: InvitationRow;
  payload: OrganizationInvitationPayload;
  dispatch: DispatchContext;
}

export async function createInvitation(
  deps: InvitationDeps,
  inviter: UserRow,
  organizationId: string,
  input: InviteInput,
  actor: ActorFields,
): Promise<InviteResult> {
  const access = await loadAccess(deps.db, inviter, organizationId);
  requireAccessRight(access, 'manager');
  const roles = input.roles ?? DEFAULT_MEMBER_ROLES;
  const scopes = input.scopes ?? [];
  await assertMemberRoles(deps, roles);
  assertOwnerChange(access, [], roles);
  const nowMs = deps.clock.now();
  // No user lookup on this path: the answer and its timing are the same for any address.
  const invitation = await upsertInvitation(deps.db, {
    id: randomId(),
    organizationId,
    email: input.email,
    roles,
    scopes,
    invitedByUserId: inviter.id,
    createdAt: new Date(nowMs),
    expiresAt: new Date(nowMs + INVITATION_TTL_SECONDS * 1000),
  });
  await deps.events.record({
    type: 'organization_invitation_created',
    userId: inviter.id,
    ...actor,
    metadata: { organizationId, invitationId: invitation.id, roles, scopes },
  });
  const { origins } = await deps.config.get();
  return {
    invitation,
    payload: {
      kind: 'organization_invitation_email',
      to: invitation.email,
      organizationName: access.organization.name,
      invitationUrl: invitationUrl(origins, invitation.id),
      invitedBy: inviter.email,
    },
    // The delivery audit rows name the inviter: the invitee's account (if any) is never looked up.
    dispatch: { userId: inviter.id, ipAddress: actor.ipAddress, userAgent: actor.userAgent },
  };
}

export async function listInvitations(
  deps: InvitationDeps,
  user: UserRow,
  organizationId: string,
  page: { limit: number; offset: number },
) {
  const access = await loadAccess(deps.db, user, organizationId);
  requireAccessRight(access, 'manager');
  return listOrganizationInvitations(deps.db, organizationId, page, deps.clock.now());
}

export async function revokeInvitation(
  deps: InvitationDeps,
  user: UserRow,
  organizationId: string,
  invitationId: string,
  actor: ActorFields,
): Promise<void> {
  const access = await loadAccess(deps.db, user, organizationId);
  requireAccessRight(access, 'manager');
  const row = await revokeInvitationRow(deps.db, organizationId, invitationId, deps.clock.now());
  if (!row) throw notFoundInvitation();
  await deps.events.record({
    type: 'organization_invitation_revoked',
    userId: user.id,
    ...actor,
    metadata: { organizationId, invitationId },
  });
}

/** Only a verified email proves the invitation is addressed to this user. */
const verifiedEmail = (user: UserRow): string | null => (user.emailVerified ? user.email : null);

export async function myInvitations(deps: InvitationDeps, user: UserRow) {
  const email = verifiedEmail(user);
  return email ? listPendingForEmail(deps.db, email, deps.clock.now()) : [];
}

export async function acceptInvitation(
  deps: InvitationDeps,
  user: UserRow,
  invitationId: string,
  actor: ActorFields,
): Promise<MembershipRow> {
  const email = verifiedEmail(user);
  if (!email) throw notFoundInvitation();
  const nowMs = deps.clock.now();
  const outcome = await acceptInvitationRow(deps.db, {
    id: invitationId,
    email,
    userId: user.id,
    membershipId: randomId(),
    nowMs,
  });
  if (!outcome.accepted) throw notFoundInvitation();
  const invitation = (await findInvitation(deps.db, invitationId))!;
  const { organizationId, roles, scopes } = invitation;
  await deps.events.record({
    type: 'organization_invitation_accepted',
    userId: user.id,
    ...actor,
    metadata: { organizationId, invitationId, roles, scopes },
  });
  if (outcome.membershipCreated) {
    await deps.events.record({
      type: 'organization_member_added',
      userId: user.id,
      ...actor,
      metadata: { organizationId, roles, scopes, invitationId },
    });
  }
  const membership = await findMembership(deps.db, organizationId, user.id);
  if (!membership) throw notFoundInvitation(); // removed again in between
  return membership;
}

export async function declineInvitation(
  deps: InvitationDeps,
  user: UserRow,
  invitationId: string,
  actor: ActorFields,
): Promise<void> {
  const email = verifiedEmail(user);
  const row = email ? await declineInvitationRow(deps.db, invitationId, email, deps.clock.now()) : null;
  if (!row) throw notFoundInvitation();
  await deps.events.record({
    type: 'organization_invitation_declined',
    userId: user.id,
    ...actor,
    metadata: { organizationId: row.organizationId, invitationId },
  });
}
