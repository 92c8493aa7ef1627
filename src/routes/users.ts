/** `GET /users/me` (contract §3.10). Credential management and deletion are added by their features. */
import { Hono } from 'hono';
import type { AppEnv } from '../deps.js';
import { credentialJson, meJson, membershipJson, organizationJson } from '../http/serialize.js';
import { requireAccess } from '../middleware/auth.js';
import { listCredentials } from '../repositories/credentials.js';
import { listUserOrganizations } from '../repositories/organizations.js';
import { countUnusedRecoveryCodes } from '../repositories/recovery-codes.js';

export const userRoutes = new Hono<AppEnv>().get('/users/me', requireAccess, async (c) => {
  const { db } = c.get('deps');
  const { user, session } = c.get('access');
  const [creds, memberships, recoveryCodesRemaining] = await Promise.all([
    listCredentials(db, user.id),
    listUserOrganizations(db, user.id),
    countUnusedRecoveryCodes(db, user.id),
  ]);
  const orgs = memberships.map((m) => ({
    ...organizationJson(m.organization),
    membership: membershipJson(m.membership),
  }));
  const activeId =
    session.organizationId && orgs.some((o) => o.id === session.organizationId) ? session.organizationId : null;
  return c.json({
    user: meJson(user, activeId),
    credentials: creds.map(credentialJson),
    organizations: orgs,
    activeOrganization: orgs.find((o) => o.id === activeId) ?? null,
    recoveryCodesRemaining,
  });
});
