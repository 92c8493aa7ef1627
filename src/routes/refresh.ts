/** `POST /refresh` and logout (contract §3.8). */
import { Hono, type Context } from 'hono';
import { bearerToken, requireAccessForLogout } from '../middleware/auth.js';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { revokeChain, revokeUserSessions } from '../repositories/sessions.js';
import { rotateRefreshToken } from '../services/session/refresh-rotation.js';
import { requestHeader } from '../../common/hono-request.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  INVALID_IDEMPOTENCY_KEY_MESSAGE,
  isIdempotencyKey,
} from '../../common/idempotency-key.js';

export const refreshRoutes = new Hono<AppEnv>()
  .post('/refresh', async (c) => {
    const token = bearerToken(requestHeader(c, 'authorization'));
    if (!token) throw fail('unauthorized', 'Missing bearer token');
    // Absent → no retry is possible; present but malformed → 400 before the token is even looked up.
    const idempotencyKey = requestHeader(c, IDEMPOTENCY_KEY_HEADER);
    if (idempotencyKey !== undefined && !isIdempotencyKey(idempotencyKey))
      throw fail('invalid_request', INVALID_IDEMPOTENCY_KEY_MESSAGE);
    return c.json(await rotateRefreshToken(c.get('deps'), token, c.get('client'), idempotencyKey ?? null));
  })
  .delete(
    '/logout',
    requireAccessForLogout((c) => c.json({ message: 'Success' })),
    async (c) => {
      const { db, clock, events } = c.get('deps');
      const { session, user } = c.get('access');
      const client = c.get('client');
      // The whole sign-in chain: an access token of a rotated-away row must end its successor too.
      await revokeChain(db, session.chainId, 'user_logout', clock.now());
      await events.record({
        type: 'logout_success',
        userId: user.id,
        sessionId: session.id,
        ipAddress: client.ip,
        userAgent: client.userAgent,
        metadata: { scope: 'current_session' },
      });
      return c.json({ message: 'Success' });
    },
  );

async function logoutAll(c: Context<AppEnv>) {
  const { db, clock, events } = c.get('deps');
  const { session, user } = c.get('access');
  const client = c.get('client');
  const revokedSessions = await revokeUserSessions(db, user.id, 'user_logout_all', clock.now());
  await events.record({
    type: 'logout_success',
    userId: user.id,
    sessionId: session.id,
    ipAddress: client.ip,
    userAgent: client.userAgent,
    metadata: { scope: 'all_sessions', revokedSessions },
  });
  return c.json({ message: 'Success', revokedSessions });
}

/** A dead session's token revokes nothing: it must not act for the user any more. */
const alreadyLoggedOut = (c: Context<AppEnv>) => c.json({ message: 'Success', revokedSessions: 0 });

refreshRoutes.delete('/logout/all', requireAccessForLogout(alreadyLoggedOut), logoutAll);
refreshRoutes.get(
  '/logout',
  async (c, next) => {
    c.header('Deprecation', 'true');
    await next();
  },
  requireAccessForLogout(alreadyLoggedOut),
  logoutAll,
);
