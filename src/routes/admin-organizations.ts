/** Admin organization routes (contract §3.15): the §3.14 operations behind role gates, plus list and delete. */
import { Hono } from 'hono';
import * as z from 'zod/mini';
import type { AppEnv } from '../deps.js';
import { actorFields } from '../http/audit.js';
import { pageQuery } from '../http/pagination.js';
import { organizationWith } from '../http/serialize-admin.js';
import { parseQuery } from '../http/validate.js';
import { requireAccess } from '../middleware/auth.js';
import { requireRole } from '../middleware/require-role.js';
import { listOrganizations } from '../repositories/organizations.js';
import { deleteOrganization } from '../services/organizations/lifecycle.js';
import { organizationHandlers } from './organization-handlers.js';

const h = organizationHandlers(true);
const read = [requireAccess, requireRole('admin:read')] as const;
const write = [requireAccess, requireRole('admin:write')] as const;
export const listQuery = z.object({
  ...pageQuery(50),
  search: z.optional(z.string().check(z.maxLength(200), z.trim())),
});

export const adminOrganizationRoutes = new Hono<AppEnv>()
  .get('/admin/organizations', ...read, async (c) => {
    const q = parseQuery(c, listQuery);
    const { rows, total } = await listOrganizations(c.get('deps').db, { ...q, search: q.search || undefined });
    return c.json({
      organizations: rows.map((r) => organizationWith(r.organization, { memberCount: Number(r.memberCount) })),
      total,
    });
  })
  .post('/admin/organizations', ...write, h.create)
  .get('/admin/organizations/:organizationId', ...read, h.read)
  .patch('/admin/organizations/:organizationId', ...write, h.update)
  .delete('/admin/organizations/:organizationId', ...write, async (c) => {
    await deleteOrganization(c.get('deps'), c.req.param('organizationId'), actorFields(c));
    return c.json({ message: 'Success' });
  })
  .get('/admin/organizations/:organizationId/members', ...read, h.members)
  .post('/admin/organizations/:organizationId/members', ...write, h.addMember)
  .patch('/admin/organizations/:organizationId/members/:userId', ...write, h.updateMember)
  .delete('/admin/organizations/:organizationId/members/:userId', ...write, h.removeMember);
