/**
 * Organization lifecycle (contract §3.14): create (the creator becomes owner
 * and admin with the four scopes), update, delete (admin), list mine, switch.
 */
import { and, eq, sql } from 'drizzle-orm';
import { durationToSeconds } from '../../config/duration.js';
import { signAccessToken } from '../../crypto/jwt.js';
import { authClaims } from '../session/auth-context.js';
import { randomId } from '../../crypto/random.js';
import {
  organizationMemberships,
  organizations,
  sessions,
  type OrganizationRow,
  type SessionRow,
  type UserRow,
} from '../../db/schema.js';
import { uniqueViolation } from '../../db/unique-violation.js';
import type { Deps } from '../../deps.js';
import type { ActorFields } from '../events/actor.js';
import { deleteOrganizationRow, findOrganization } from '../../repositories/organizations.js';
import { loadAccess, notFoundOrganization, requireAccessRight } from './access.js';
import { firstFreeSuffix, normalizeSlug, slugCandidate } from './slug.js';

export const CREATOR_ROLES = ['owner', 'admin'];
export const CREATOR_SCOPES = ['organization:read', 'organization:write', 'members:read', 'members:write'];
const SLUG_ATTEMPTS = 20;

type OrgDeps = Pick<Deps, 'db' | 'clock' | 'events'>;

export interface OrganizationInput {
  name?: string;
  slug?: string;
  metadata?: Record<string, unknown> | null;
}

const isSlugConflict = (err: unknown) => uniqueViolation(err)?.includes('organizations.slug') ?? false;

/**
 * Runs `write(slug)` with the first free slug, moving to the next suffix when
 * a concurrent writer took it (the unique index is the real guard).
 */
async function withFreeSlug(
  db: OrgDeps['db'],
  base: string,
  ownSlug: string | undefined,
  write: (slug: string) => Promise<void>,
): Promise<string> {
  let n = await firstFreeSuffix(db, base, ownSlug);
  for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
    const slug = slugCandidate(base, n);
    try {
      await write(slug);
      return slug;
    } catch (err) {
      if (!isSlugConflict(err)) throw err;
      n = n < 2 ? 2 : n + 1;
    }
  }
  // Pathological contention: fall back to a random suffix.
  const slug = `${base.slice(0, 60).replace(/-+$/, '')}-${randomId().slice(0, 8)}`;
  await write(slug);
  return slug;
}

export async function createOrganization(
  deps: OrgDeps,
  creator: UserRow,
  input: Required<Pick<OrganizationInput, 'name'>> & OrganizationInput,
  actor: ActorFields,
): Promise<OrganizationRow> {
  const now = new Date(deps.clock.now());
  const id = randomId();
  const base = normalizeSlug(input.slug ?? input.name, now.getTime());
  const slug = await withFreeSlug(deps.db, base, undefined, async (candidate) => {
    // One batch: the organization never exists without its owner.
    await deps.db.batch([
      deps.db.insert(organizations).values({
        id,
        name: input.name,
        slug: candidate,
        createdByUserId: creator.id,
        metadata: input.metadata ?? null,
        createdAt: now,
        updatedAt: now,
      }),
      deps.db.insert(organizationMemberships).values({
        id: randomId(),
        organizationId: id,
        userId: creator.id,
        roles: CREATOR_ROLES,
        scopes: CREATOR_SCOPES,
        createdAt: now,
        updatedAt: now,
      }),
    ]);
  });
  await deps.events.record({
    type: 'organization_created',
    userId: creator.id,
    ...actor,
    metadata: { organizationId: id, slug },
  });
  return (await findOrganization(deps.db, id))!;
}

/** Manager only; `{}` is a no-op (no write, no event). The slug is re-normalised. */
export async function updateOrganization(
  deps: OrgDeps,
  user: UserRow,
  organizationId: string,
  input: OrganizationInput,
  actor: ActorFields,
): Promise<OrganizationRow> {
  const access = await loadAccess(deps.db, user, organizationId);
  requireAccessRight(access, 'manager');
  const current = access.organization;
  const set: Partial<OrganizationRow> = {};
  if (input.name !== undefined && input.name !== current.name) set.name = input.name;
  if (input.metadata !== undefined) set.metadata = input.metadata;
  const changed = Object.keys(set);
  const nowMs = deps.clock.now();
  let slugChanged = false;
  if (input.slug !== undefined) {
    const base = normalizeSlug(input.slug, nowMs);
    if (base !== current.slug) {
      slugChanged = true;
      await withFreeSlug(deps.db, base, current.slug, async (candidate) => {
        await deps.db
          .update(organizations)
          .set({ ...set, slug: candidate, updatedAt: new Date(nowMs) })
          .where(eq(organizations.id, organizationId));
      });
    }
  }
  if (!slugChanged && changed.length) {
    await deps.db
      .update(organizations)
      .set({ ...set, updatedAt: new Date(nowMs) })
      .where(eq(organizations.id, organizationId));
  }
  const changedFields = slugChanged ? [...changed, 'slug'] : changed;
  if (changedFields.length)
    await deps.events.record({
      type: 'organization_updated',
      userId: user.id,
      ...actor,
      metadata: { organizationId, changedFields },
    });
  return (await findOrganization(deps.db, organizationId))!;
}

/** Admin route only: memberships cascade; sessions pointing at it get `organization_id = null`. */
export async function deleteOrganization(deps: OrgDeps, organizationId: string, actor: ActorFields): Promise<void> {
  if (!(await deleteOrganizationRow(deps.db, organizationId))) throw notFoundOrganization();
  await deps.events.record({
    type: 'organization_deleted',
    userId: actor.actorUserId,
    ...actor,
    metadata: { organizationId },
  });
}

export interface SwitchResult {
  token: string;
  organization: OrganizationRow;
  ttl: number;
}

/**
 * Makes `organizationId` the session's active organization and re-signs the
 * access token for the same `sid` with `org_id` (no refresh token). Only a
 * member may switch; the session update is conditional on the membership.
 */
export async function switchOrganization(
  deps: OrgDeps & Pick<Deps, 'keys' | 'env' | 'config'>,
  user: UserRow,
  session: SessionRow,
  organizationId: string,
  actor: ActorFields,
): Promise<SwitchResult> {
  const organization = await findOrganization(deps.db, organizationId);
  if (!organization) throw notFoundOrganization();
  const nowMs = deps.clock.now();
  const res = await deps.db
    .update(sessions)
    .set({ organizationId, updatedAt: new Date(nowMs) })
    .where(
      and(
        eq(sessions.id, session.id),
        sql`EXISTS (SELECT 1 FROM organization_memberships AS m WHERE m.organization_id = ${organizationId} AND m.user_id = ${user.id})`,
      ),
    );
  if (res.rowsAffected === 0) throw notFoundOrganization();
  const cfg = await deps.config.get();
  const ttl = durationToSeconds(cfg.access_token_ttl);
  const token = await signAccessToken(
    deps.keys,
    { sub: user.id, sid: session.id, roles: user.roles, orgId: organizationId, auth: authClaims(session) },
    ttl,
    { issuer: deps.env.issuer, nowMs },
  );
  await deps.events.record({
    type: 'organization_switched',
    userId: user.id,
    ...actor,
    metadata: { organizationId, previousOrganizationId: session.organizationId },
  });
  return { token, organization, ttl };
}
