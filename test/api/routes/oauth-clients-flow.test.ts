/**
 * Client management against the provider's real flows (oauth-core merged in):
 * a client created through the admin API signs a user in; rotating its secret
 * ends the old one at the token endpoint; the user's apps list shows it and
 * revoking it makes the refresh token fail with `invalid_grant` and brings the
 * consent page back; a dynamically registered client always asks for consent,
 * is marked dynamic there, and its token use keeps it from the purge.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { oauthClients, oauthGrants } from '../../../src/db/schema.js';
import { runMaintenance } from '../../../src/services/maintenance.js';
import { signedIn } from '../../helpers/admin.js';
import type { TestApi } from '../../helpers/make-app.js';
import {
  authorizeCall,
  authParams,
  makeProviderApi,
  obtainCode,
  pkce,
  redeem,
  REDIRECT,
  refreshCall,
  signedInUser,
  type TestClient,
} from '../../helpers/oauth-server.js';

const DAY = 86_400_000;

async function adminClient(t: TestApi, token: string, body: Record<string, unknown> = {}): Promise<TestClient> {
  const res = await t.call('POST', '/admin/oauth-clients', {
    token,
    body: {
      name: 'Team notes',
      type: 'confidential',
      redirectUris: [REDIRECT],
      scopes: ['openid', 'email', 'offline_access'],
      ...body,
    },
  });
  expect(res.status).toBe(201);
  const [row] = await t.api.deps.db.select().from(oauthClients).where(eq(oauthClients.id, res.body.client.id));
  return { row: row!, secret: res.body.clientSecret ?? null };
}

describe('client management with the provider’s flows', () => {
  it('an admin-created client signs a user in; rotation ends the old secret; revoking the app ends its refresh token', async () => {
    const t = await makeProviderApi();
    const admin = await signedIn(t, ['admin']);
    const client = await adminClient(t, admin.token);
    const { user, session } = await signedInUser(t);

    const { code, verifier } = await obtainCode(t, session, client, { scope: 'openid email offline_access' });
    const tokens = await redeem(t, client, code, verifier);
    expect(tokens.status).toBe(200);
    expect(tokens.body.refresh_token).toMatch(/^svc_rt_/);
    const [touched] = await t.api.deps.db.select().from(oauthClients).where(eq(oauthClients.id, client.row.id));
    expect(touched!.lastUsedAt).toBeInstanceOf(Date);

    // Rotation: the old secret is refused at the token endpoint, the new one works.
    const rotated = await t.call('POST', `/admin/oauth-clients/${client.row.id}/secret`, { token: admin.token });
    const old = await refreshCall(t, client, tokens.body.refresh_token);
    expect([old.status, old.body.error]).toEqual([401, 'invalid_client']);
    const current: TestClient = { ...client, secret: rotated.body.clientSecret };
    const refreshed = await refreshCall(t, current, tokens.body.refresh_token);
    expect(refreshed.status).toBe(200);

    const apps = await t.call('GET', '/users/me/oauth-apps', { token: session.token });
    expect(apps.body.apps).toEqual([
      {
        client: { id: client.row.id, name: 'Team notes', clientUri: null, registration: 'admin' },
        scopes: expect.arrayContaining(['openid', 'email', 'offline_access']),
        consentedAt: expect.any(String),
        lastUsedAt: expect.any(String),
      },
    ]);

    const revoked = await t.call('DELETE', `/users/me/oauth-apps/${client.row.id}`, { token: session.token });
    expect(revoked.body).toEqual({ message: 'Success', revokedGrants: 1 });
    const after = await refreshCall(t, current, refreshed.body.refresh_token);
    expect([after.status, after.body.error]).toEqual([400, 'invalid_grant']);
    const grants = await t.api.deps.db.select().from(oauthGrants).where(eq(oauthGrants.userId, user.id));
    expect(grants.map((g) => g.revokedReason)).toEqual(['consent_revoked']);
    // The consent is forgotten: the next authorization asks again.
    const again = await authorizeCall(t, authParams(current, pkce().challenge), session.token);
    expect(again.body.action).toBe('consent');
  });

  it('a dynamically registered client asks for consent (marked dynamic), and its token use keeps it from the purge', async () => {
    const t = await makeProviderApi({ dynamicRegistration: { enabled: true, perIpPerHour: 10, unusedExpiryDays: 30 } });
    const metadata = await t.call('GET', '/oauth2/metadata');
    expect(metadata.body.registration_endpoint).toBe('http://auth.test/auth/oauth2/register');
    const registered = await t.call('POST', '/oauth2/register', {
      body: {
        client_name: 'An MCP client',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        scope: 'openid mcp:tools offline_access',
      },
    });
    expect(registered.status).toBe(201);
    const [row] = await t.api.deps.db.select().from(oauthClients).where(eq(oauthClients.id, registered.body.client_id));
    const client: TestClient = { row: row!, secret: null };
    const { session } = await signedInUser(t);
    const { challenge, verifier } = pkce();
    const asked = await authorizeCall(t, authParams(client, challenge, { scope: 'openid' }), session.token);
    expect(asked.body).toMatchObject({ action: 'consent', client: { id: client.row.id, registration: 'dynamic' } });
    const allowed = await t.call('POST', '/oauth2/consent', {
      token: session.token,
      body: { requestId: asked.body.requestId, decision: 'allow' },
    });
    const code = new URL(allowed.body.location).searchParams.get('code')!;
    expect((await redeem(t, client, code, verifier)).status).toBe(200);

    // 29 days after its last token request it stays; 31 days after, the purge deletes it.
    t.clock.advance(29 * DAY);
    await runMaintenance(t.api.deps.db, t.clock.now());
    expect(await t.api.deps.db.select().from(oauthClients)).toHaveLength(1);
    t.clock.advance(2 * DAY);
    await runMaintenance(t.api.deps.db, t.clock.now());
    expect(await t.api.deps.db.select().from(oauthClients)).toHaveLength(0);
    expect(await t.api.deps.db.select().from(oauthGrants)).toHaveLength(0);
  });
});
