/** Event fields for a request made with an access credential (actor = the signed-in user). */
import type { Context } from 'hono';
import type { AppEnv } from '../deps.js';
import type { ActorFields } from '../services/events/actor.js';

export type { ActorFields } from '../services/events/actor.js';

/** The acting user, their session and the trusted client context (contract §2.10). */
export function actorFields(c: Context<AppEnv>): ActorFields {
  const { user, session } = c.get('access');
  const client = c.get('client');
  return { actorUserId: user.id, sessionId: session.id, ipAddress: client.ip, userAgent: client.userAgent };
}
