/** `GET /users/me` (contract §3.10). Credential management and deletion are added by their features. */
import { asc, eq } from 'drizzle-orm';
import { Hono } from 'hono';
import type { AppEnv } from '../deps.js';
import { credentials, organizationMemberships, organizations } from '../db/schema.js';
import { credentialJson, meJson, membershipJson, organizationJson } from '../http/serialize.js';
import { requireAccess } from '../middleware/auth.js';

export const userRoutes = new Hono<AppEnv>().get('/users/me', requireAccess, async (c) => {
  const { db } = c.get('deps');
  const { user, session } = c.get('access');
  const [creds, memberships] = await Promise.all([
    db.select().from(credentials).where(eq(credentials.userId, user.id)).orderBy(asc(credentials.createdAt)),
    db
      .select({ organization: organizations, membership: organizationMemberships })
      .from(organizationMemberships)
      .innerJoin(organizations, eq(organizations.id, organizationMemberships.organizationId))
      .where(eq(organizationMemberships.userId, user.id))
      .orderBy(asc(organizationMemberships.createdAt)),
  ]);
  const orgs = memberships.map((m) => ({ ...organizationJson(m.organization), membership: membershipJson(m.membership) }));
  const activeId = session.organizationId && orgs.some((o) => o.id === session.organizationId) ? session.organizationId : null;
  return c.json({
    user: meJson(user, activeId),
    credentials: creds.map(credentialJson),
    organizations: orgs,
    activeOrganization: orgs.find((o) => o.id === activeId) ?? null,
  });
});
