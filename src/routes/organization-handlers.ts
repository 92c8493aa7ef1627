/**
 * Handlers shared by `/organizations/*` and `/admin/organizations/*`
 * (contract §3.14, §3.15). The admin group adds its role gates and strict
 * bodies; the access rules of §3.14 apply to both (a global admin:write is a
 * manager, admin:read may read).
 */
import type { Context } from 'hono';
import * as z from 'zod/mini';
import type { AppEnv } from '../deps.js';
import { actorFields } from '../http/audit.js';
import { pageQuery } from '../http/pagination.js';
import { membershipJson } from '../http/serialize.js';
import { organizationWith } from '../http/serialize-admin.js';
import { parseBody, parseQuery } from '../http/validate.js';
import { listMembers, memberCount } from '../repositories/organizations.js';
import { loadAccess, requireAccessRight } from '../services/organizations/access.js';
import { addMember, removeMember, updateMember } from '../services/organizations/members.js';
import { createOrganization, updateOrganization } from '../services/organizations/lifecycle.js';
import { emailField } from '../services/contact/normalize.js';
import { roleListField } from '../services/config/role-lists.js';

type C = Context<AppEnv>;

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(120));
const slug = z.string().check(z.minLength(1), z.maxLength(100));
const metadata = z.nullable(z.record(z.string(), z.unknown()));

const createShape = { name, slug: z.optional(slug), metadata: z.optional(metadata) };
const addMemberShape = {
  userId: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  email: z.optional(emailField),
  roles: z.optional(roleListField),
  scopes: z.optional(roleListField),
};
const exactlyOne = (b: { userId?: string; email?: string }) => (b.userId === undefined) !== (b.email === undefined);
const exactlyOneIssue = { message: 'Give exactly one of userId or email', path: ['userId'] };

/** Unknown fields are ignored on user POST bodies and rejected on PATCH and admin bodies (§0.4). */
export const organizationBodies = (strict: boolean) => {
  const obj = strict ? z.strictObject : z.object;
  return {
    create: obj(createShape),
    update: z.strictObject({ name: z.optional(name), slug: z.optional(slug), metadata: z.optional(metadata) }),
    addMember: obj(addMemberShape).check(z.refine(exactlyOne, exactlyOneIssue)),
    updateMember: z.strictObject({ roles: z.optional(roleListField), scopes: z.optional(roleListField) }),
  };
};

export const membersQuery = z.object(pageQuery(50));

export function organizationHandlers(strict: boolean) {
  const bodies = organizationBodies(strict);
  const orgId = (c: C) => c.req.param('organizationId')!;
  return {
    async create(c: C) {
      const body = parseBody(c, bodies.create);
      const org = await createOrganization(c.get('deps'), c.get('access').user, body, actorFields(c));
      const access = await loadAccess(c.get('deps').db, c.get('access').user, org.id);
      return c.json({ organization: organizationWith(org, { membership: access.membership, memberCount: 1 }) }, 201);
    },
    async read(c: C) {
      const { db } = c.get('deps');
      const access = await loadAccess(db, c.get('access').user, orgId(c));
      requireAccessRight(access, 'canRead');
      return c.json({
        organization: organizationWith(access.organization, {
          membership: access.membership,
          memberCount: await memberCount(db, access.organization.id),
        }),
      });
    },
    async update(c: C) {
      const body = parseBody(c, bodies.update);
      const org = await updateOrganization(c.get('deps'), c.get('access').user, orgId(c), body, actorFields(c));
      const access = await loadAccess(c.get('deps').db, c.get('access').user, org.id);
      return c.json({ organization: organizationWith(org, { membership: access.membership }) });
    },
    async members(c: C) {
      const { db } = c.get('deps');
      const access = await loadAccess(db, c.get('access').user, orgId(c));
      requireAccessRight(access, 'canListMembers');
      const { rows, total } = await listMembers(db, access.organization.id, parseQuery(c, membersQuery));
      return c.json({ members: rows.map((r) => ({ ...membershipJson(r.membership), user: r.user })), total });
    },
    /** Mounted on the admin route only: users join by invitation (organization-invitations.ts). */
    async addMember(c: C) {
      const body = parseBody(c, bodies.addMember);
      const membership = await addMember(c.get('deps'), c.get('access').user, orgId(c), body, actorFields(c));
      return c.json({ membership: membershipJson(membership) }, 201);
    },
    async updateMember(c: C) {
      const body = parseBody(c, bodies.updateMember);
      const membership = await updateMember(
        c.get('deps'),
        c.get('access').user,
        orgId(c),
        c.req.param('userId')!,
        body,
        actorFields(c),
      );
      return c.json({ membership: membershipJson(membership) });
    },
    async removeMember(c: C) {
      await removeMember(c.get('deps'), c.get('access').user, orgId(c), c.req.param('userId')!, actorFields(c));
      return c.json({ message: 'Success' });
    },
  };
}
