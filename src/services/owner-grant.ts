/**
 * OWNER_EMAIL grant (contract §0.6): when a listed email is verified for the
 * first time, the user gets `admin` (or `admin:write` when `admin` is not an
 * available role) and `owner_role_granted` is written.
 */
import { eq } from 'drizzle-orm';
import { users, type UserRow } from '../db/schema.js';
import type { Deps } from '../deps.js';

export async function applyOwnerGrant(
  deps: Pick<Deps, 'db' | 'env' | 'config' | 'events' | 'clock'>,
  user: Pick<UserRow, 'id' | 'email' | 'roles'>,
  event: { ipAddress: string | null; userAgent: string | null },
): Promise<string[]> {
  if (!deps.env.ownerEmails.includes(user.email.toLowerCase())) return user.roles;
  const { available_roles } = await deps.config.get();
  const role = available_roles.includes('admin') ? 'admin' : 'admin:write';
  if (user.roles.includes(role)) return user.roles;
  const roles = [...user.roles, role];
  await deps.db.update(users).set({ roles, updatedAt: new Date(deps.clock.now()) }).where(eq(users.id, user.id));
  await deps.events.record({ ...event, type: 'owner_role_granted', userId: user.id, metadata: { role } });
  return roles;
}
