/**
 * Organization membership management (contract §3.14): direct add by user id
 * or email (admin route only: users invite, see organization-invitations.ts),
 * update roles/scopes, remove, with the last-owner rule enforced in
 * one conditional statement. Only an owner (or global `admin:write`) may
 * grant or remove `owner` or change an owner's membership.
 */
import { randomId } from '../../crypto/random.js';
import { organizationMemberships, type MembershipRow, type UserRow } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { fail } from '../../errors.js';
import type { ActorFields } from '../events/actor.js';
import { deleteMembershipGuarded, findMembership, updateMembershipGuarded } from '../../repositories/organizations.js';
import { findUserByEmail, findUserById } from '../../repositories/users.js';
import { loadAccess, requireAccessRight, type OrganizationAccess } from './access.js';
import { unavailableRoles } from '../config/role-lists.js';

/** Membership roles every organization knows, besides the global `available_roles`. */
export const ORGANIZATION_ROLES = ['owner', 'admin', 'member'];
export const DEFAULT_MEMBER_ROLES = ['member'];

export type MemberDeps = Pick<Deps, 'db' | 'clock' | 'events' | 'config'>;

/** Membership roles must be organization roles or in `available_roles` (invitations use the same rule). */
export async function assertMemberRoles(deps: MemberDeps, roles: string[]) {
  const cfg = await deps.config.get();
  if (unavailableRoles(roles, [...ORGANIZATION_ROLES, ...cfg.available_roles]).length) throw fail('role_not_available');
}

/** Granting `owner`, or changing or removing an owner's membership, needs an owner (or global admin:write). */
export function assertOwnerChange(access: OrganizationAccess, before: string[], after: string[]) {
  const touchesOwner = before.includes('owner') || after.includes('owner');
  if (touchesOwner && !access.canManageOwners)
    throw fail('forbidden', 'Only an owner can change owners', { required: ['owner'] });
}

export interface AddMemberInput {
  userId?: string;
  email?: string;
  roles?: string[];
  scopes?: string[];
}

export async function addMember(
  deps: MemberDeps,
  actorUser: UserRow,
  organizationId: string,
  input: AddMemberInput,
  actor: ActorFields,
): Promise<MembershipRow> {
  const access = await loadAccess(deps.db, actorUser, organizationId);
  requireAccessRight(access, 'manager');
  const roles = input.roles ?? DEFAULT_MEMBER_ROLES;
  const scopes = input.scopes ?? [];
  await assertMemberRoles(deps, roles);
  assertOwnerChange(access, [], roles);
  const target = input.userId
    ? await findUserById(deps.db, input.userId)
    : await findUserByEmail(deps.db, input.email!);
  if (!target) throw fail('not_found', 'User not found');
  const now = new Date(deps.clock.now());
  const res = await deps.db
    .insert(organizationMemberships)
    .values({ id: randomId(), organizationId, userId: target.id, roles, scopes, createdAt: now, updatedAt: now })
    .onConflictDoNothing();
  if (res.rowsAffected === 0) throw fail('already_exists', 'User is already an organization member');
  await deps.events.record({
    type: 'organization_member_added',
    userId: target.id,
    ...actor,
    metadata: { organizationId, roles, scopes },
  });
  return (await findMembership(deps.db, organizationId, target.id))!;
}

export interface UpdateMemberInput {
  roles?: string[];
  scopes?: string[];
}

export async function updateMember(
  deps: MemberDeps,
  actorUser: UserRow,
  organizationId: string,
  userId: string,
  input: UpdateMemberInput,
  actor: ActorFields,
): Promise<MembershipRow> {
  const access = await loadAccess(deps.db, actorUser, organizationId);
  requireAccessRight(access, 'manager');
  const current = await findMembership(deps.db, organizationId, userId);
  if (!current) throw fail('not_found', 'Membership not found');
  const roles = input.roles ?? current.roles;
  const scopes = input.scopes ?? current.scopes;
  if (input.roles) await assertMemberRoles(deps, input.roles);
  assertOwnerChange(access, current.roles, roles);
  const outcome = await updateMembershipGuarded(deps.db, organizationId, userId, { roles, scopes }, deps.clock.now());
  if (outcome === 'missing') throw fail('not_found', 'Membership not found');
  if (outcome === 'last_owner') throw fail('last_owner');
  await deps.events.record({
    type: 'organization_member_updated',
    userId,
    ...actor,
    metadata: { organizationId, roles, scopes },
  });
  return (await findMembership(deps.db, organizationId, userId))!;
}

export async function removeMember(
  deps: MemberDeps,
  actorUser: UserRow,
  organizationId: string,
  userId: string,
  actor: ActorFields,
): Promise<void> {
  const access = await loadAccess(deps.db, actorUser, organizationId);
  requireAccessRight(access, 'manager');
  const current = await findMembership(deps.db, organizationId, userId);
  if (!current) throw fail('not_found', 'Membership not found');
  assertOwnerChange(access, current.roles, []);
  const outcome = await deleteMembershipGuarded(deps.db, organizationId, userId, deps.clock.now());
  if (outcome === 'missing') throw fail('not_found', 'Membership not found');
  if (outcome === 'last_owner') throw fail('last_owner');
  await deps.events.record({ type: 'organization_member_removed', userId, ...actor, metadata: { organizationId } });
}
