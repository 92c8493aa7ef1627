/**
 * The user's apps (docs/oauth-provider.md, "Consent and the user's apps
 * page"): the clients the user let in, and taking that back: the consent is
 * forgotten (the next authorization asks again) and every grant ends
 * (`revoked_reason: 'consent_revoked'`), so its refresh tokens stop working.
 */
import type { Deps } from '../../../deps.js';
import { fail } from '../../../errors.js';
import { listUserApps, revokeUserApp } from '../../../repositories/oauth-user-apps.js';
import type { ActorFields } from '../../events/actor.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export async function listApps(deps: Pick<Deps, 'db'>, userId: string) {
  const rows = await listUserApps(deps.db, userId);
  const apps = rows.map((r) => ({
    client: r.client,
    scopes: r.scope ? r.scope.split(' ').filter(Boolean) : [],
    consentedAt: iso(r.consentedAt),
    lastUsedAt: iso(r.lastUsedAt),
  }));
  return { apps, total: apps.length };
}

export async function revokeApp(deps: Pick<Deps, 'db' | 'clock' | 'events'>, clientId: string, actor: ActorFields) {
  const result = await revokeUserApp(deps.db, actor.actorUserId, clientId, new Date(deps.clock.now()));
  if (!result.consent && result.revokedGrants === 0) throw fail('oauth_client_not_found');
  await deps.events.record({
    type: 'oauth_consent_revoked',
    userId: actor.actorUserId,
    ...actor,
    metadata: { clientId, revokedGrants: result.revokedGrants },
  });
  return { message: 'Success' as const, revokedGrants: result.revokedGrants };
}
