/** `GET /users/me` (contract §3.10). Credential management and deletion are added by their features. */
import { Hono } from 'hono';
import type { AppEnv } from '../deps.js';
import { credentialJson, meJson, membershipJson, organizationJson } from '../http/serialize.js';
import { accessWithReads } from '../middleware/auth.js';
import { credentialsRead } from '../repositories/credentials.js';
import { userOrganizationsRead } from '../repositories/organizations.js';
import { unusedRecoveryCodesRead } from '../repositories/recovery-codes.js';

// The access check and the three reads in one batch: one read transaction, one round trip to a remote database.
export const userRoutes = new Hono<AppEnv>().get('/users/me', async (c) => {
  const {
    access: { user, session },
    reads: [creds, memberships, unused],
  } = await accessWithReads(
    c,
    (db, userId) =>
      [credentialsRead(db, userId), userOrganizationsRead(db, userId), unusedRecoveryCodesRead(db, userId)] as const,
  );
  const recoveryCodesRemaining = unused?.n ?? 0;
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
