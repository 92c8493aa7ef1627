/** Event fields for a request made with an access credential (actor = the signed-in user). */
import type { Context } from 'hono';
import type { AppEnv } from '../deps.js';

export interface ActorFields {
  actorUserId: string;
  sessionId: string;
  ipAddress: string | null;
  userAgent: string | null;
}

/** The acting user, their session and the trusted client context (contract §2.10). */
export function actorFields(c: Context<AppEnv>): ActorFields {
  const { user, session } = c.get('access');
  const client = c.get('client');
  return { actorUserId: user.id, sessionId: session.id, ipAddress: client.ip, userAgent: client.userAgent };
}
