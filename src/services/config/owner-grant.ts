/**
 * OWNER_EMAIL grant (contract §0.6): when a listed email is verified for the
 * first time, the user gets `admin` (or `admin:write` when `admin` is not an
 * available role) and `owner_role_granted` is written.
 */
import type { UserRow } from '../../db/schema.js';
import type { Deps } from '../../deps.js';

/**
 * The role the grant adds to `user`, or null. Pure decision: the caller writes
 * the roles in the same batch as the verification and the session, so a crash
 * can never leave a verified owner without the role.
 */
export async function ownerGrantRole(
  deps: Pick<Deps, 'env' | 'config'>,
  user: Pick<UserRow, 'email' | 'roles'>,
): Promise<string | null> {
  if (!deps.env.ownerEmails.includes(user.email.toLowerCase())) return null;
  const { available_roles } = await deps.config.get();
  const role = available_roles.includes('admin') ? 'admin' : 'admin:write';
  return user.roles.includes(role) ? null : role;
}
