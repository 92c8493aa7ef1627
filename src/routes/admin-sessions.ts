/** Admin session routes (contract §3.15). */
import { count, desc } from 'drizzle-orm';
import { Hono } from 'hono';
import * as z from 'zod/mini';
import { sessions } from '../db/schema.js';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { actorFields } from '../http/audit.js';
import { pageQuery } from '../http/pagination.js';
import { adminSessionJson } from '../http/serialize-admin.js';
import { parseQuery } from '../http/validate.js';
import { requireAccess } from '../middleware/auth.js';
import { requireRole } from '../middleware/require-role.js';
import { revokeAllUserSessions } from '../repositories/admin-users.js';
import { activeSessionWhere, findSessionById, listActiveSessions, revokeChain } from '../repositories/sessions.js';

export const listQuery = z.object(pageQuery(10));

export const adminSessionRoutes = new Hono<AppEnv>()
  .get('/admin/sessions', requireAccess, requireRole('admin:read'), async (c) => {
    const { db, clock } = c.get('deps');
    const page = parseQuery(c, listQuery);
    const where = activeSessionWhere(clock.now());
    const [rows, [total]] = await Promise.all([
      db
        .select()
        .from(sessions)
        .where(where)
        .orderBy(desc(sessions.createdAt), desc(sessions.id))
        .limit(page.limit)
        .offset(page.offset),
      db.select({ n: count() }).from(sessions).where(where),
    ]);
    const current = c.get('access').session.id;
    return c.json({ sessions: rows.map((s) => adminSessionJson(s, current)), total: total?.n ?? 0 });
  })
  .get('/admin/sessions/:userId', requireAccess, requireRole('admin:read'), async (c) => {
    const { db, clock } = c.get('deps');
    const rows = await listActiveSessions(db, c.req.param('userId'), clock.now());
    const current = c.get('access').session.id;
    return c.json({ sessions: rows.map((s) => adminSessionJson(s, current)), total: rows.length });
  })
  .delete('/admin/sessions/by-id/:id', requireAccess, requireRole('admin:write'), async (c) => {
    const { db, clock, events } = c.get('deps');
    const target = await findSessionById(db, c.req.param('id'));
    if (!target) throw fail('not_found', 'Session not found');
    // The whole sign-in chain: a refresh racing the admin cannot keep a successor alive,
    // and rotated-away rows stop authenticating their access tokens too.
    const revoked = await revokeChain(db, target.chainId, 'admin_revoke', clock.now());
    await events.record({
      type: 'admin_session_revoked',
      userId: target.userId,
      ...actorFields(c),
      metadata: { scope: 'one', revokedSessionId: target.id, revokedRows: revoked },
    });
    return c.json({ message: 'Success' });
  })
  .delete('/admin/sessions/:userId/revoke-all', requireAccess, requireRole('admin:write'), async (c) => {
    const { db, clock, events } = c.get('deps');
    const userId = c.req.param('userId');
    const revokedSessions = await revokeAllUserSessions(db, userId, 'admin_revoke_all', clock.now());
    await events.record({
      type: 'admin_session_revoked',
      userId,
      ...actorFields(c),
      metadata: { scope: 'all', revokedSessions },
    });
    return c.json({ message: 'Success', revokedSessions });
  });
