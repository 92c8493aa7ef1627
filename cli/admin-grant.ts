/**
 * Creating or promoting the first admin from the command line: the role is
 * the one OWNER_EMAIL grants (services/config/owner-grant.ts: `admin`, or
 * `admin:write` when `admin` is not an available role), the account is
 * verified, and nothing changes when it already is an admin.
 */
import { eq } from 'drizzle-orm';
import type { SystemConfigValues } from '../src/config/keys.js';
import { randomId } from '../src/crypto/random.js';
import type { BatchItem } from 'drizzle-orm/batch';
import { authEvents, users, type UserRow } from '../src/db/schema.js';
import { uniqueViolation } from '../src/db/unique-violation.js';
import type { ApiEnv } from '../src/config/env.js';
import { findUserByEmail } from '../src/repositories/users.js';
import { ownerGrantRole } from '../src/services/config/owner-grant.js';
import { CLI_ACTOR, type CliDeps } from './deps.js';
import { firstLine } from './database.js';
import { CliError, EXIT } from './exit-codes.js';

export interface AdminGrantResult {
  userId: string;
  email: string;
  roles: string[];
  outcome: 'created' | 'promoted' | 'unchanged';
  changedFields: string[];
}

type RoleLists = Pick<SystemConfigValues, 'available_roles' | 'default_roles'>;

/** The OWNER_EMAIL rule, applied to this one address. */
async function adminRole(roles: RoleLists, email: string): Promise<string> {
  const config = { get: async () => roles as SystemConfigValues, invalidate() {} };
  const role =
    (await ownerGrantRole({ env: { ownerEmails: [email] } as ApiEnv, config }, { email, roles: [] })) ?? 'admin';
  if (!roles.available_roles.includes(role)) {
    throw new CliError(
      EXIT.failure,
      'role_not_available',
      `neither admin nor admin:write is in available_roles (${roles.available_roles.join(', ')}): add admin first (svc config set available_roles …)`,
    );
  }
  return role;
}

/**
 * The account write and its event as one batch: either both land or neither
 * (the API's routes record events after their write; here nothing else would
 * notice a lost event).
 */
async function writeWithEvent(
  deps: CliDeps,
  write: BatchItem<'sqlite'>,
  type: string,
  userId: string,
  metadata: Record<string, unknown>,
): Promise<void> {
  const event = deps.db.insert(authEvents).values({
    id: randomId(),
    type,
    userId,
    actorUserId: null,
    sessionId: null,
    ipAddress: null,
    userAgent: CLI_ACTOR.userAgent,
    metadata,
    createdAt: new Date(deps.clock.now()),
  });
  try {
    await deps.db.batch([write, event]);
  } catch (err) {
    // A concurrent creation is the caller's to resolve; anything else is a clean failure.
    if (uniqueViolation(err)) throw err;
    throw new CliError(EXIT.failure, 'write_failed', `nothing was written (${firstLine(err)})`);
  }
}

async function promote(deps: CliDeps, user: UserRow, role: string): Promise<AdminGrantResult> {
  const set: Partial<UserRow> = {};
  if (!user.roles.includes(role)) set.roles = [...user.roles, role];
  if (!user.verified) set.verified = true;
  if (!user.emailVerified) set.emailVerified = true;
  const changedFields = Object.keys(set);
  if (changedFields.length === 0)
    return { userId: user.id, email: user.email, roles: user.roles, outcome: 'unchanged', changedFields };
  const update = deps.db
    .update(users)
    .set({ ...set, updatedAt: new Date(deps.clock.now()) })
    .where(eq(users.id, user.id));
  await writeWithEvent(deps, update, 'admin_user_updated', user.id, {
    changedFields,
    grantedRole: set.roles ? role : null,
    via: 'cli',
  });
  return { userId: user.id, email: user.email, roles: set.roles ?? user.roles, outcome: 'promoted', changedFields };
}

/** Idempotent: a second run for the same address changes nothing and writes no event. */
export async function grantAdmin(deps: CliDeps, email: string, roles: RoleLists): Promise<AdminGrantResult> {
  const existing = await findUserByEmail(deps.db, email);
  if (existing?.revoked) {
    throw new CliError(
      EXIT.failure,
      'user_revoked',
      `${email} is revoked: lift it first (PATCH /admin/users/${existing.id} {"revoked":false}), then retry`,
    );
  }
  const role = await adminRole(roles, email);
  if (existing) return promote(deps, existing, role);
  const now = new Date(deps.clock.now());
  const userRoles = [...new Set([...roles.default_roles, role])];
  const row = {
    id: randomId(),
    email,
    phone: null,
    roles: userRoles,
    verified: true,
    emailVerified: true,
    phoneVerified: false,
    revoked: false,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await writeWithEvent(deps, deps.db.insert(users).values(row), 'admin_user_created', row.id, {
      roles: userRoles,
      verified: true,
      via: 'cli',
    });
  } catch (err) {
    // Created by someone else since our read: promote that account instead.
    if (!uniqueViolation(err)) throw err;
    const raced = await findUserByEmail(deps.db, email);
    if (!raced) throw err;
    return promote(deps, raced, role);
  }
  return { userId: row.id, email, roles: userRoles, outcome: 'created', changedFields: [] };
}
