/**
 * Drizzle queries behind the user's apps page (docs/oauth-provider.md,
 * "Consent and the user's apps page"): the clients a user consented to or
 * holds live grants for, and the revocation of all of it. No business rules.
 */
import { and, eq, inArray, isNotNull, isNull, max } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { oauthClients, oauthCodes, oauthConsents, oauthGrants, oauthRefreshTokens } from '../db/schema.js';

export interface UserAppRow {
  client: { id: string; name: string; clientUri: string | null; registration: 'admin' | 'dynamic' };
  scope: string | null;
  consentedAt: Date | null;
  lastUsedAt: Date | null;
}

const clientColumns = {
  id: oauthClients.id,
  name: oauthClients.name,
  clientUri: oauthClients.clientUri,
  registration: oauthClients.registration,
};

/**
 * One row per client: a remembered consent, or live grants without one (a
 * `skipConsent` first-party client); last use is the newest grant or refresh.
 */
export async function listUserApps(db: Db, userId: string): Promise<UserAppRow[]> {
  const [consents, grants, refreshes] = await Promise.all([
    db
      .select({ client: clientColumns, scope: oauthConsents.scope, consentedAt: oauthConsents.updatedAt })
      .from(oauthConsents)
      .innerJoin(oauthClients, eq(oauthClients.id, oauthConsents.clientId))
      .where(eq(oauthConsents.userId, userId)),
    db
      .select({ client: clientColumns, scope: oauthGrants.scope, lastUsedAt: max(oauthGrants.createdAt) })
      .from(oauthGrants)
      .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
      .where(and(eq(oauthGrants.userId, userId), isNull(oauthGrants.revokedAt)))
      .groupBy(oauthGrants.clientId),
    db
      .select({ clientId: oauthGrants.clientId, lastUsedAt: max(oauthRefreshTokens.createdAt) })
      .from(oauthRefreshTokens)
      .innerJoin(oauthGrants, eq(oauthGrants.id, oauthRefreshTokens.grantId))
      .where(and(eq(oauthGrants.userId, userId), isNull(oauthGrants.revokedAt)))
      .groupBy(oauthGrants.clientId),
  ]);
  const apps = new Map<string, UserAppRow>();
  for (const c of consents) apps.set(c.client.id, { ...c, lastUsedAt: null });
  const later = (a: Date | null, b: Date | null) => (a && b ? (a > b ? a : b) : (a ?? b));
  for (const g of grants) {
    const app = apps.get(g.client.id);
    if (app) app.lastUsedAt = later(app.lastUsedAt, g.lastUsedAt);
    else apps.set(g.client.id, { client: g.client, scope: g.scope, consentedAt: null, lastUsedAt: g.lastUsedAt });
  }
  for (const r of refreshes) {
    const app = apps.get(r.clientId);
    if (app) app.lastUsedAt = later(app.lastUsedAt, r.lastUsedAt);
  }
  return [...apps.values()].sort(
    (a, b) => a.client.name.localeCompare(b.client.name) || a.client.id.localeCompare(b.client.id),
  );
}

/**
 * Forgets the consent and revokes every live grant of this user and client in
 * one batch (one transaction, so a grant created meanwhile is either revoked
 * or created after); the revoked grants' refresh tokens and unused codes are
 * deleted too, so nothing they issued can be redeemed even by a check that
 * forgets the grant. Returns what existed (nothing = never authorized).
 */
export async function revokeUserApp(
  db: Db,
  userId: string,
  clientId: string,
  now: Date,
): Promise<{ consent: boolean; revokedGrants: number }> {
  const pair = and(eq(oauthGrants.userId, userId), eq(oauthGrants.clientId, clientId));
  const revokedIds = db
    .select({ id: oauthGrants.id })
    .from(oauthGrants)
    .where(and(pair, isNotNull(oauthGrants.revokedAt)));
  const [consents, revoked] = await db.batch([
    db
      .delete(oauthConsents)
      .where(and(eq(oauthConsents.userId, userId), eq(oauthConsents.clientId, clientId)))
      .returning({ userId: oauthConsents.userId }),
    db
      .update(oauthGrants)
      .set({ revokedAt: now, revokedReason: 'consent_revoked' })
      .where(and(pair, isNull(oauthGrants.revokedAt)))
      .returning({ id: oauthGrants.id }),
    db.delete(oauthRefreshTokens).where(inArray(oauthRefreshTokens.grantId, revokedIds)),
    db.delete(oauthCodes).where(inArray(oauthCodes.grantId, revokedIds)),
  ]);
  return { consent: consents.length > 0, revokedGrants: revoked.length };
}
