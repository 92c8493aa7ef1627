/** Role and scope list handling shared by admin users, memberships and config (contract §2.4, §5.9). */
import * as z from 'zod/mini';
import { ROLE_NAME_MAX_LENGTH, ROLE_NAME_PATTERN } from '../../../common/roles.js';

export const MAX_ROLES_PER_LIST = 50;

/** Trims, drops empties and duplicates (first occurrence wins). */
export function cleanRoleList(values: string[]): string[] {
  return [...new Set(values.map((v) => v.trim()).filter(Boolean))];
}

/** A list of role names: trimmed, de-duplicated, valid names, at most 50. */
export const roleListField = z.pipe(
  z.pipe(
    z.array(z.string().check(z.maxLength(ROLE_NAME_MAX_LENGTH + 20))).check(z.maxLength(200)),
    z.transform(cleanRoleList),
  ),
  z
    .array(z.string().check(z.maxLength(ROLE_NAME_MAX_LENGTH), z.regex(ROLE_NAME_PATTERN, 'Invalid role name')))
    .check(z.maxLength(MAX_ROLES_PER_LIST)),
);

/** Roles outside `allowed` (empty when all are allowed). */
export const unavailableRoles = (roles: readonly string[], allowed: readonly string[]) =>
  roles.filter((r) => !allowed.includes(r));
