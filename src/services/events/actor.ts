/**
 * Who did an admin or account write, as event fields (contract §2.10): the routes fill it from the access credential.
 */
export interface ActorFields {
  actorUserId: string;
  sessionId: string;
  ipAddress: string | null;
  userAgent: string | null;
}
