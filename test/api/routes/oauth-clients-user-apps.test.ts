/**
 * The user's apps (docs/oauth-provider.md, "Consent and the user's apps
 * page"): `GET /users/me/oauth-apps` lists what the user authorized,
 * `DELETE /users/me/oauth-apps/:clientId` forgets the consent and revokes
 * every grant (`consent_revoked`), deleting their refresh tokens and codes.
 * Rows are inserted directly, as the authorization flow would have left them.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { hashOAuthSecret, newOAuthSecret } from '../../../src/crypto/oauth-server.js';
import {
  authEvents,
  oauthClients,
  oauthCodes,
  oauthConsents,
  oauthGrants,
  oauthRefreshTokens,
} from '../../../src/db/schema.js';
import { signedIn } from '../../helpers/admin.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';

async function client(t: TestApi, id: string, name: string, extra: Partial<typeof oauthClients.$inferInsert> = {}) {
  const now = new Date(t.clock.now());
  await t.api.deps.db.insert(oauthClients).values({
    id,
    name,
    type: 'public',
    tokenEndpointAuthMethod: 'none',
    redirectUris: ['https://app.example/cb'],
    scopes: ['openid', 'email', 'offline_access'],
    grantTypes: ['authorization_code', 'refresh_token'],
    registration: 'admin',
    createdAt: now,
    updatedAt: now,
    ...extra,
  });
}

async function grant(t: TestApi, userId: string, clientId: string, id: string, scope = 'openid email') {
  const now = new Date(t.clock.now());
  await t.api.deps.db.insert(oauthGrants).values({ id, clientId, userId, scope, authTime: now, createdAt: now });
  await t.api.deps.db.insert(oauthRefreshTokens).values({
    id: `${id}-rt`,
    grantId: id,
    tokenHash: hashOAuthSecret('refresh-token', newOAuthSecret('refresh-token')),
    createdAt: now,
    expiresAt: new Date(t.clock.now() + 86_400_000),
  });
  await t.api.deps.db.insert(oauthCodes).values({
    codeHash: hashOAuthSecret('code', `${id}-code`),
    grantId: id,
    redirectUri: 'https://app.example/cb',
    codeChallenge: 'x'.repeat(43),
    createdAt: now,
    expiresAt: new Date(t.clock.now() + 60_000),
  });
}

async function consent(t: TestApi, userId: string, clientId: string, scope: string) {
  const now = new Date(t.clock.now());
  await t.api.deps.db.insert(oauthConsents).values({ userId, clientId, scope, createdAt: now, updatedAt: now });
}

describe("the user's apps", () => {
  it('lists consented clients and live first-party grants, never another user’s', async () => {
    const t = await makeApi();
    const me = await signedIn(t);
    const other = await signedIn(t);
    await client(t, 'svc_ci_notes', 'Notes', { clientUri: 'https://notes.example' });
    await client(t, 'svc_ci_mcp', 'An MCP client', { registration: 'dynamic' });
    await client(t, 'svc_ci_first', 'Backoffice', { skipConsent: true });
    const consentedAt = new Date(t.clock.now()).toISOString();
    await consent(t, me.user.id, 'svc_ci_notes', 'email openid');
    await consent(t, me.user.id, 'svc_ci_mcp', 'mcp:tools');
    await consent(t, other.user.id, 'svc_ci_first', 'openid');
    t.clock.advance(60_000);
    await grant(t, me.user.id, 'svc_ci_notes', 'g1');
    await grant(t, me.user.id, 'svc_ci_first', 'g2', 'openid');
    const usedAt = new Date(t.clock.now()).toISOString();

    const res = await t.call('GET', '/users/me/oauth-apps', { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      total: 3,
      apps: [
        {
          client: { id: 'svc_ci_mcp', name: 'An MCP client', clientUri: null, registration: 'dynamic' },
          scopes: ['mcp:tools'],
          consentedAt,
          lastUsedAt: null,
        },
        {
          client: { id: 'svc_ci_first', name: 'Backoffice', clientUri: null, registration: 'admin' },
          scopes: ['openid'],
          consentedAt: null,
          lastUsedAt: usedAt,
        },
        {
          client: { id: 'svc_ci_notes', name: 'Notes', clientUri: 'https://notes.example', registration: 'admin' },
          scopes: ['email', 'openid'],
          consentedAt,
          lastUsedAt: usedAt,
        },
      ],
    });
    expect(
      (await t.call('GET', '/users/me/oauth-apps', { token: other.token })).body.apps.map((a: any) => a.client.id),
    ).toEqual(['svc_ci_first']);
    expect((await t.call('GET', '/users/me/oauth-apps')).status).toBe(401);
  });

  it('revoking forgets the consent, revokes every grant with consent_revoked, deletes its refresh tokens and codes', async () => {
    const t = await makeApi();
    const me = await signedIn(t);
    const other = await signedIn(t);
    await client(t, 'svc_ci_notes', 'Notes');
    await consent(t, me.user.id, 'svc_ci_notes', 'openid');
    await consent(t, other.user.id, 'svc_ci_notes', 'openid');
    await grant(t, me.user.id, 'svc_ci_notes', 'g1');
    await grant(t, me.user.id, 'svc_ci_notes', 'g2');
    await grant(t, other.user.id, 'svc_ci_notes', 'g3');

    const res = await t.call('DELETE', '/users/me/oauth-apps/svc_ci_notes', { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Success', revokedGrants: 2 });
    const grants = await t.api.deps.db.select().from(oauthGrants);
    expect(grants.find((g) => g.id === 'g1')).toMatchObject({ revokedReason: 'consent_revoked' });
    expect(grants.find((g) => g.id === 'g1')?.revokedAt).toBeInstanceOf(Date);
    expect(grants.find((g) => g.id === 'g2')).toMatchObject({ revokedReason: 'consent_revoked' });
    expect(grants.find((g) => g.id === 'g3')).toMatchObject({ revokedAt: null, revokedReason: null });
    const tokens = await t.api.deps.db.select().from(oauthRefreshTokens);
    expect(tokens.map((r) => r.grantId)).toEqual(['g3']);
    expect((await t.api.deps.db.select().from(oauthCodes)).map((r) => r.grantId)).toEqual(['g3']);
    expect((await t.api.deps.db.select().from(oauthConsents)).map((r) => r.userId)).toEqual([other.user.id]);
    const [ev] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'oauth_consent_revoked'));
    expect(ev).toMatchObject({ userId: me.user.id, metadata: { clientId: 'svc_ci_notes', revokedGrants: 2 } });
    expect((await t.call('GET', '/users/me/oauth-apps', { token: me.token })).body).toEqual({ apps: [], total: 0 });

    // Nothing left to revoke, another user's app, an unknown client: the same 404.
    for (const id of ['svc_ci_notes', 'svc_ci_unknown']) {
      const again = await t.call('DELETE', `/users/me/oauth-apps/${id}`, { token: me.token });
      expect(again.status).toBe(404);
      expect(again.body.error).toBe('oauth_client_not_found');
    }
  });
});
