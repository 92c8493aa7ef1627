/**
 * Admin user management (contract §3.15): create, patch (strict; `revoked`
 * ends every session), delete. Roles must be in `available_roles`.
 */
import { eq } from 'drizzle-orm';
import { randomId } from '../../crypto/random.js';
import { uniqueViolation } from '../../db/unique-violation.js';
import { users, type UserRow } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { fail } from '../../errors.js';
import type { ActorFields } from '../events/actor.js';
import { deleteUserRow, revokeAllUserSessions } from '../../repositories/admin-users.js';
import { recordAdminContactChange } from '../contact-change/report.js';
import type { MessagePayload } from '../delivery/types.js';
import { findUserById } from '../../repositories/users.js';
import { unavailableRoles } from '../config/role-lists.js';

type AdminDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'events'>;

async function assertRolesAvailable(deps: AdminDeps, roles: string[]) {
  const cfg = await deps.config.get();
  if (unavailableRoles(roles, cfg.available_roles).length) throw fail('role_not_available');
}

function conflictOrThrow(err: unknown): never {
  if (uniqueViolation(err)) throw fail('already_exists', 'User already exists');
  throw err;
}

export interface AdminCreateUserInput {
  email: string;
  phone?: string | null;
  roles: string[];
}

/** Creates an unverified user; they finish registration through the email OTP. */
export async function adminCreateUser(
  deps: AdminDeps,
  input: AdminCreateUserInput,
  actor: ActorFields,
): Promise<UserRow> {
  await assertRolesAvailable(deps, input.roles);
  const now = new Date(deps.clock.now());
  const row = {
    id: randomId(),
    email: input.email,
    phone: input.phone ?? null,
    roles: input.roles,
    verified: false,
    emailVerified: false,
    phoneVerified: false,
    revoked: false,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await deps.db.insert(users).values(row);
  } catch (err) {
    conflictOrThrow(err);
  }
  await deps.events.record({ type: 'admin_user_created', userId: row.id, ...actor, metadata: { roles: row.roles } });
  return (await findUserById(deps.db, row.id))!;
}

export interface AdminPatchUserInput {
  email?: string;
  phone?: string | null;
  emailVerified?: boolean;
  phoneVerified?: boolean;
  roles?: string[];
  revoked?: boolean;
}

/**
 * Applies a strict patch. A changed phone resets `phoneVerified` and a changed
 * email resets `emailVerified`, unless the same request sets them explicitly.
 * `revoked: true` revokes every session (reason `admin_user_revoked`).
 */
export async function adminPatchUser(
  deps: AdminDeps,
  userId: string,
  patch: AdminPatchUserInput,
  actor: ActorFields,
  /** Receives the notice for the old address of a changed email or phone (docs/contact-change.md). */
  notify?: (notice: MessagePayload) => void,
): Promise<UserRow> {
  const current = await findUserById(deps.db, userId);
  if (!current) throw fail('not_found', 'User not found');
  if (patch.roles) await assertRolesAvailable(deps, patch.roles);

  const set: Partial<UserRow> = {};
  if (patch.email !== undefined && patch.email !== current.email) {
    set.email = patch.email;
    set.emailVerified = false;
  }
  if (patch.phone !== undefined && patch.phone !== current.phone) {
    set.phone = patch.phone;
    set.phoneVerified = false;
  }
  if (patch.emailVerified !== undefined) set.emailVerified = patch.emailVerified;
  if (patch.phoneVerified !== undefined)
    set.phoneVerified = patch.phoneVerified && (set.phone ?? current.phone) !== null;
  if (patch.roles !== undefined) set.roles = patch.roles;
  if (patch.revoked !== undefined) set.revoked = patch.revoked;
  const changedFields = (Object.keys(set) as (keyof UserRow)[]).filter(
    (k) => JSON.stringify(set[k]) !== JSON.stringify(current[k]),
  );

  const nowMs = deps.clock.now();
  if (changedFields.length) {
    try {
      await deps.db
        .update(users)
        .set({ ...set, updatedAt: new Date(nowMs) })
        .where(eq(users.id, userId));
    } catch (err) {
      conflictOrThrow(err);
    }
  }
  // Revoking is applied even when the flag was already set, so stray sessions die.
  let revokedSessions = 0;
  if (patch.revoked === true)
    revokedSessions = await revokeAllUserSessions(deps.db, userId, 'admin_user_revoked', nowMs);
  for (const channel of ['email', 'phone'] as const) {
    if (!changedFields.includes(channel)) continue;
    const notice = await recordAdminContactChange(deps, current, channel, set[channel] ?? null, actor);
    if (notice) notify?.(notice);
  }
  await deps.events.record({
    type: 'admin_user_updated',
    userId,
    ...actor,
    metadata: { changedFields, ...(patch.revoked ? { revokedSessions } : {}) },
  });
  return (await findUserById(deps.db, userId))!;
}

/**
 * Deletes the user; credentials, sessions, memberships, TOTP, codes and links
 * cascade. The event keeps the id in metadata because `auth_events.user_id`
 * is set to null when the user row goes.
 */
export async function deleteUserAccount(
  deps: AdminDeps,
  userId: string,
  actor: ActorFields,
  self: boolean,
): Promise<void> {
  const deleted = await deleteUserRow(deps.db, userId);
  if (!deleted) throw fail('not_found', 'User not found');
  await deps.events.record({ type: 'user_deleted', userId: null, ...actor, metadata: { deletedUserId: userId, self } });
}
