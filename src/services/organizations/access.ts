/**
 * Organization access rules (contract §3.14). A manager is a global
 * `admin:write` or a member with role `owner`/`admin`. Read needs the
 * `organization:read` scope, manager or global `admin:read`; listing members
 * needs `members:read`, manager or global `admin:read`. Anyone else gets 404,
 * so existence stays hidden. Scopes use the shared role-satisfaction function.
 */
import { satisfiesAny } from '../../../common/roles.js';
import type { Db } from '../../db/client.js';
import type { MembershipRow, OrganizationRow, UserRow } from '../../db/schema.js';
import { fail } from '../../errors.js';
import { findMembership, findOrganization } from '../../repositories/organizations.js';

export interface OrganizationAccess {
  organization: OrganizationRow;
  membership: MembershipRow | null;
  manager: boolean;
  canRead: boolean;
  canListMembers: boolean;
  /** May grant or take away `owner`, or change an owner's membership. */
  canManageOwners: boolean;
}

export const notFoundOrganization = () => fail('not_found', 'Organization not found');

export function accessFor(
  user: Pick<UserRow, 'roles'>,
  organization: OrganizationRow,
  membership: MembershipRow | null,
): OrganizationAccess {
  const globalWrite = satisfiesAny(user.roles, ['admin:write']);
  const globalRead = satisfiesAny(user.roles, ['admin:read']);
  const memberRoles = membership?.roles ?? [];
  const scopes = membership?.scopes ?? [];
  const manager = globalWrite || satisfiesAny(memberRoles, ['owner', 'admin']);
  return {
    organization,
    membership,
    manager,
    canRead: manager || globalRead || satisfiesAny(scopes, ['organization:read']),
    canListMembers: manager || globalRead || satisfiesAny(scopes, ['members:read']),
    canManageOwners: globalWrite || memberRoles.includes('owner'),
  };
}

/** Loads the organization and the caller's membership; unknown id → 404. */
export async function loadAccess(
  db: Db,
  user: Pick<UserRow, 'id' | 'roles'>,
  organizationId: string,
): Promise<OrganizationAccess> {
  const [organization, membership] = await Promise.all([
    findOrganization(db, organizationId),
    findMembership(db, organizationId, user.id),
  ]);
  if (!organization) throw notFoundOrganization();
  return accessFor(user, organization, membership);
}

/** Throws 404 unless the check holds (no 403: a refusal must not reveal the organization). */
export function requireAccessRight(access: OrganizationAccess, right: 'canRead' | 'canListMembers' | 'manager'): void {
  if (!access[right]) throw notFoundOrganization();
}
