/** Self-service sessions (contract §3.9). */
import { Hono } from 'hono';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { sessionJson } from '../http/serialize.js';
import { requireAccess } from '../middleware/auth.js';
import { findSessionById, listActiveSessions, revokeChain, revokeUserSessions } from '../repositories/sessions.js';

export const sessionRoutes = new Hono<AppEnv>()
  // `/sessions/*` also matches `/sessions` itself: one mount, one access check per request.
  .use('/sessions/*', requireAccess)
  .get('/sessions', async (c) => {
    const { db, clock } = c.get('deps');
    const { user, session } = c.get('access');
    const rows = await listActiveSessions(db, user.id, clock.now());
    return c.json({ sessions: rows.map((s) => sessionJson(s, session.id)), total: rows.length });
  })
  .delete('/sessions/:id', async (c) => {
    const { db, clock, events } = c.get('deps');
    const { user, session } = c.get('access');
    const target = await findSessionById(db, c.req.param('id'));
    if (!target || target.userId !== user.id) throw fail('not_found', 'Session not found');
    // The target's whole chain, so a refresh racing this call cannot keep a successor alive.
    await revokeChain(db, target.chainId, 'user_revoked', clock.now());
    const client = c.get('client');
    await events.record({
      type: 'session_revoked',
      userId: user.id,
      sessionId: session.id,
      ipAddress: client.ip,
      userAgent: client.userAgent,
      metadata: { revokedSessionId: target.id },
    });
    return c.json({ message: 'Success' });
  })
  .delete('/sessions', async (c) => {
    const { db, clock, events } = c.get('deps');
    const { user, session } = c.get('access');
    const revokedSessions = await revokeUserSessions(db, user.id, 'user_revoked', clock.now(), session.chainId);
    const client = c.get('client');
    await events.record({
      type: 'session_revoked',
      userId: user.id,
      sessionId: session.id,
      ipAddress: client.ip,
      userAgent: client.userAgent,
      metadata: { scope: 'others', revokedSessions },
    });
    return c.json({ message: 'Success', revokedSessions });
  });
