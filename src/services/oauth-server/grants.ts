/**
 * Grants (docs/oauth-provider.md): the unit a code, its access tokens and its
 * refresh chain share. A grant is live while it is not revoked, its user and
 * client are not, and — without `offline_access` — the svc sign-in it was
 * authorized from has not ended (logout, revocation, expiry).
 */
import type { OAuthGrantRow, UserRow } from '../../db/schema.js';
import type { Deps, RequestContext } from '../../deps.js';
import { findOAuthClient } from '../../repositories/oauth-clients.js';
import { findLiveUser, revokeGrant, sessionChainAlive } from '../../repositories/oauth-server.js';
import { clientFields } from '../events/auth-events.js';
import { parseScope } from './scopes.js';

export const hasOfflineAccess = (scope: string) => (parseScope(scope) ?? []).includes('offline_access');

/** The grant's user when the grant is live, else null. */
export async function liveGrantUser(deps: Pick<Deps, 'db'>, grant: OAuthGrantRow, now: Date): Promise<UserRow | null> {
  if (grant.revokedAt) return null;
  const [user, client] = await Promise.all([
    findLiveUser(deps.db, grant.userId),
    findOAuthClient(deps.db, grant.clientId),
  ]);
  if (!user || !client || client.disabledAt) return null;
  if (!hasOfflineAccess(grant.scope)) {
    if (!grant.sessionId || !(await sessionChainAlive(deps.db, grant.sessionId, now))) return null;
  }
  return user;
}

export type GrantRevokeReason = 'client' | 'code_replay' | 'refresh_reuse';

/** Revokes a grant once and records `oauth_grant_revoked` (never a token in it). */
export async function endGrant(
  deps: Pick<Deps, 'db' | 'clock' | 'events'>,
  grant: OAuthGrantRow,
  reason: GrantRevokeReason,
  client: RequestContext,
): Promise<void> {
  if (!(await revokeGrant(deps.db, grant.id, reason, new Date(deps.clock.now())))) return;
  await deps.events.record({
    type: 'oauth_grant_revoked',
    userId: grant.userId,
    ...clientFields(client),
    metadata: { clientId: grant.clientId, grantId: grant.id, reason },
  });
}
