/**
 * Organization invitations (docs/contract-changes.md, "Organization
 * invitations replace direct add"; every route `A`). Mounted before
 * `organizations.ts`, so `/organizations/invitations` is never taken for an
 * organization id.
 */
import { Hono } from 'hono';
import * as z from 'zod/mini';
import type { AppEnv } from '../deps.js';
import { actorFields } from '../http/audit.js';
import { deliver } from './deliver.js';
import { pageQuery } from '../http/pagination.js';
import { membershipJson } from '../http/serialize.js';
import { invitationJson, receivedInvitationJson } from '../http/serialize-invitations.js';
import { parseBody, parseQuery } from '../http/validate.js';
import { requireAccess } from '../middleware/auth.js';
import { FLOW_LIMITS, flowLimit } from '../middleware/rate-limit.js';
import { emailField } from '../services/contact/normalize.js';
import {
  acceptInvitation,
  createInvitation,
  declineInvitation,
  listInvitations,
  myInvitations,
  revokeInvitation,
} from '../services/organizations/invitations.js';
import { roleListField } from '../services/config/role-lists.js';

/** Unknown fields are ignored, as on the other user POST bodies (§0.4). */
export const inviteBody = z.object({
  email: emailField,
  roles: z.optional(roleListField),
  scopes: z.optional(roleListField),
});
export const invitationsQuery = z.object(pageQuery(50));

// Each invitation sends an email to an address of the inviter's choosing: cap it per inviter.
const inviteLimit = flowLimit(FLOW_LIMITS.invite, (c) => `sub:${c.get('access').user.id}`);

export const organizationInvitationRoutes = new Hono<AppEnv>()
  .get('/organizations/invitations', requireAccess, async (c) => {
    const rows = await myInvitations(c.get('deps'), c.get('access').user);
    return c.json({ invitations: rows.map(receivedInvitationJson) });
  })
  .post('/organizations/invitations/:invitationId/accept', requireAccess, async (c) => {
    const membership = await acceptInvitation(
      c.get('deps'),
      c.get('access').user,
      c.req.param('invitationId'),
      actorFields(c),
    );
    return c.json({ membership: membershipJson(membership) });
  })
  .post('/organizations/invitations/:invitationId/decline', requireAccess, async (c) => {
    await declineInvitation(c.get('deps'), c.get('access').user, c.req.param('invitationId'), actorFields(c));
    return c.json({ message: 'Success' });
  })
  .post('/organizations/:organizationId/invitations', requireAccess, inviteLimit, async (c) => {
    const body = parseBody(c, inviteBody);
    const deps = c.get('deps');
    const out = await createInvitation(deps, c.get('access').user, c.req.param('organizationId'), body, actorFields(c));
    return c.json(
      { invitation: invitationJson(out.invitation, deps.clock.now()), ...deliver(c, out.payload, out.dispatch) },
      201,
    );
  })
  .get('/organizations/:organizationId/invitations', requireAccess, async (c) => {
    const deps = c.get('deps');
    const { rows, total } = await listInvitations(
      deps,
      c.get('access').user,
      c.req.param('organizationId'),
      parseQuery(c, invitationsQuery),
    );
    const nowMs = deps.clock.now();
    return c.json({ invitations: rows.map((r) => invitationJson(r, nowMs)), total });
  })
  .delete('/organizations/:organizationId/invitations/:invitationId', requireAccess, async (c) => {
    await revokeInvitation(
      c.get('deps'),
      c.get('access').user,
      c.req.param('organizationId'),
      c.req.param('invitationId'),
      actorFields(c),
    );
    return c.json({ message: 'Success' });
  });
