/**
 * Organizations for signed-in users (contract §3.14; every route `A`). Users
 * join by invitation (organization-invitations.ts); the direct add is an
 * admin route only.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../deps.js';
import { actorFields } from '../http/audit.js';
import { membershipJson } from '../http/serialize.js';
import { organizationWith } from '../http/serialize-admin.js';
import { requireAccess } from '../middleware/auth.js';
import { listUserOrganizations } from '../repositories/organizations.js';
import { switchOrganization } from '../services/organizations/lifecycle.js';
import { organizationHandlers } from './organization-handlers.js';

const h = organizationHandlers(false);

export const organizationRoutes = new Hono<AppEnv>()
  .get('/organizations', requireAccess, async (c) => {
    const { user, session } = c.get('access');
    const rows = await listUserOrganizations(c.get('deps').db, user.id);
    const active = rows.some((r) => r.organization.id === session.organizationId) ? session.organizationId : null;
    return c.json({
      organizations: rows.map((r) => ({
        ...organizationWith(r.organization),
        membership: membershipJson(r.membership),
      })),
      activeOrganizationId: active,
    });
  })
  .post('/organizations', requireAccess, h.create)
  .get('/organizations/:organizationId', requireAccess, h.read)
  .patch('/organizations/:organizationId', requireAccess, h.update)
  .post('/organizations/:organizationId/switch', requireAccess, async (c) => {
    const { user, session } = c.get('access');
    const out = await switchOrganization(c.get('deps'), user, session, c.req.param('organizationId'), actorFields(c));
    return c.json({
      message: 'Success',
      token: out.token,
      sub: user.id,
      sessionId: session.id,
      organizationId: out.organization.id,
      organization: organizationWith(out.organization),
      roles: user.roles,
      email: user.email,
      phone: user.phone,
      ttl: out.ttl,
    });
  })
  .get('/organizations/:organizationId/members', requireAccess, h.members)
  .patch('/organizations/:organizationId/members/:userId', requireAccess, h.updateMember)
  .delete('/organizations/:organizationId/members/:userId', requireAccess, h.removeMember);
