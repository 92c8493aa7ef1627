/** Admin user routes (contract §3.15): list/search, create, read, patch, delete, anomalies. */
import { and, asc, eq } from 'drizzle-orm';
import { Hono } from 'hono';
import * as z from 'zod/mini';
import { credentials, totpCredentials } from '../db/schema.js';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { actorFields } from '../http/audit.js';
import { sendInBackground } from './contact-change.js';
import { pageQuery } from '../http/pagination.js';
import { apiUserJson, authEventJson, credentialJson, membershipJson } from '../http/serialize.js';
import { adminSessionJson, organizationWith } from '../http/serialize-admin.js';
import { parseBody, parseQuery } from '../http/validate.js';
import { requireAccess } from '../middleware/auth.js';
import { requireRole } from '../middleware/require-role.js';
import { listUsers, recentUserEvents } from '../repositories/admin-users.js';
import { userAnomalies } from '../repositories/auth-event-queries.js';
import { listUserOrganizations } from '../repositories/organizations.js';
import { listActiveSessions } from '../repositories/sessions.js';
import { findUserById } from '../repositories/users.js';
import { countUnusedRecoveryCodes } from '../repositories/recovery-codes.js';
import { adminCreateUser, adminPatchUser, deleteUserAccount } from '../services/admin/users.js';
import { emailField, phoneField } from '../services/contact/normalize.js';
import { roleListField } from '../services/config/role-lists.js';

export const listQuery = z.object({
  ...pageQuery(50),
  search: z.optional(z.string().check(z.maxLength(320), z.trim())),
});

export const createBody = z.strictObject({
  email: emailField,
  phone: z.optional(z.nullable(phoneField)),
  roles: z.pipe(roleListField, z.array(z.string()).check(z.minLength(1))),
});

export const patchBody = z
  .strictObject({
    email: z.optional(emailField),
    phone: z.optional(z.nullable(phoneField)),
    emailVerified: z.optional(z.boolean()),
    phoneVerified: z.optional(z.boolean()),
    roles: z.optional(roleListField),
    revoked: z.optional(z.boolean()),
  })
  .check(z.refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'At least one field is required' }));

const RECENT_EVENTS = 50;

export const adminUserRoutes = new Hono<AppEnv>()
  .get('/admin/users', requireAccess, requireRole('admin:read'), async (c) => {
    const q = parseQuery(c, listQuery);
    const { rows, total } = await listUsers(c.get('deps').db, { ...q, search: q.search || undefined });
    return c.json({ users: rows.map(apiUserJson), total });
  })
  .post('/admin/users', requireAccess, requireRole('admin:write'), async (c) => {
    const body = parseBody(c, createBody);
    const user = await adminCreateUser(c.get('deps'), body, actorFields(c));
    return c.json({ user: apiUserJson(user) }, 201);
  })
  .get('/admin/users/:userId', requireAccess, requireRole('admin:read'), async (c) => {
    const { db, clock } = c.get('deps');
    const user = await findUserById(db, c.req.param('userId'));
    if (!user) throw fail('not_found', 'User not found');
    const [sessions, creds, totp, orgs, events, recoveryCodesRemaining] = await Promise.all([
      listActiveSessions(db, user.id, clock.now()),
      db.select().from(credentials).where(eq(credentials.userId, user.id)).orderBy(asc(credentials.createdAt)),
      db
        .select({ id: totpCredentials.id })
        .from(totpCredentials)
        .where(and(eq(totpCredentials.userId, user.id), eq(totpCredentials.enabled, true)))
        .limit(1),
      listUserOrganizations(db, user.id),
      recentUserEvents(db, user.id, RECENT_EVENTS),
      countUnusedRecoveryCodes(db, user.id),
    ]);
    return c.json({
      user: apiUserJson(user),
      sessions: sessions.map((s) => adminSessionJson(s)),
      credentials: creds.map(credentialJson),
      totp: { enabled: totp.length > 0 },
      organizations: orgs.map((o) => ({
        ...organizationWith(o.organization),
        membership: membershipJson(o.membership),
      })),
      events: events.map(authEventJson),
      recoveryCodesRemaining,
    });
  })
  .patch('/admin/users/:userId', requireAccess, requireRole('admin:write'), async (c) => {
    const body = parseBody(c, patchBody);
    const user = await adminPatchUser(c.get('deps'), c.req.param('userId'), body, actorFields(c), (notice) =>
      sendInBackground(c, notice, c.req.param('userId')),
    );
    return c.json({ user: apiUserJson(user) });
  })
  .delete('/admin/users/:userId', requireAccess, requireRole('admin:write'), async (c) => {
    await deleteUserAccount(c.get('deps'), c.req.param('userId'), actorFields(c), false);
    return c.json({ message: 'Success' });
  })
  .get('/admin/users/:userId/anomalies', requireAccess, requireRole('admin:read'), async (c) => {
    const { db } = c.get('deps');
    const user = await findUserById(db, c.req.param('userId'));
    if (!user) throw fail('not_found', 'User not found');
    const found = await userAnomalies(db, user.id);
    return c.json({
      suspiciousEvents: found.events.map(authEventJson),
      relatedIps: found.ips,
      relatedAgents: found.agents,
    });
  });
