/**
 * The provider's clients through the admin API (docs/oauth-provider.md,
 * "Clients"): the secret is stored only as a hash and shown once, rotation
 * ends the old secret, every write is audited without a secret.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { oauthSecretMatches } from '../../../src/crypto/oauth-server.js';
import { authEvents, oauthClients } from '../../../src/db/schema.js';
import { signedIn } from '../../helpers/admin.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { setOAuthServer } from '../../helpers/oauth-server.js';

const BODY = {
  name: 'Notes',
  type: 'confidential',
  redirectUris: ['https://notes.example/callback'],
  scopes: ['openid', 'email'],
};

async function setup() {
  const t = await makeApi();
  const admin = await signedIn(t, ['admin:read', 'admin:write']);
  return { t, admin };
}

const row = async (t: TestApi, id: string) =>
  (await t.api.deps.db.select().from(oauthClients).where(eq(oauthClients.id, id)))[0]!;

describe('admin OAuth clients', () => {
  it('creates a confidential client: the secret is shown once, stored only as its hash, never in a read or list', async () => {
    const { t, admin } = await setup();
    const res = await t.call('POST', '/admin/oauth-clients', { token: admin.token, body: BODY });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.clientSecret).toMatch(/^svc_cs_[A-Za-z0-9_-]{43}$/);
    expect(res.body.client).toMatchObject({
      name: 'Notes',
      type: 'confidential',
      redirectUris: ['https://notes.example/callback'],
      scopes: ['openid', 'email'],
      grantTypes: ['authorization_code', 'refresh_token'],
      tokenEndpointAuthMethod: 'client_secret_basic',
      clientUri: null,
      registration: 'admin',
      skipConsent: false,
      lastUsedAt: null,
    });
    const id: string = res.body.client.id;
    expect(id).toMatch(/^svc_ci_/);
    const stored = await row(t, id);
    expect(stored.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(res.body.clientSecret);
    expect(oauthSecretMatches('client-secret', stored.secretHash!, res.body.clientSecret)).toBe(true);
    expect(stored.createdBy).toBe(admin.user.id);

    const read = await t.call('GET', `/admin/oauth-clients/${id}`, { token: admin.token });
    expect(read.status).toBe(200);
    expect(read.body.client).toEqual(res.body.client);
    expect(JSON.stringify(read.body)).not.toContain('svc_cs_');
    const list = await t.call('GET', '/admin/oauth-clients', { token: admin.token });
    expect(list.body).toEqual({ clients: [res.body.client], total: 1 });
    expect(JSON.stringify(list.body)).not.toMatch(/svc_cs_|secretHash/);

    const events = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'oauth_client_created'));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actorUserId: admin.user.id, metadata: { clientId: id } });
    const allEvents = JSON.stringify(await t.api.deps.db.select().from(authEvents));
    expect(allEvents).not.toContain(res.body.clientSecret);
    expect(allEvents).not.toContain(stored.secretHash);
  });

  it('creates a public client with no secret and auth method none', async () => {
    const { t, admin } = await setup();
    const res = await t.call('POST', '/admin/oauth-clients', {
      token: admin.token,
      body: { ...BODY, type: 'public', redirectUris: ['http://127.0.0.1/cb', 'com.example.app:/cb'] },
    });
    expect(res.status).toBe(201);
    expect(res.body.clientSecret).toBeUndefined();
    expect(res.body.client.tokenEndpointAuthMethod).toBe('none');
    expect((await row(t, res.body.client.id)).secretHash).toBeNull();
    const rotate = await t.call('POST', `/admin/oauth-clients/${res.body.client.id}/secret`, { token: admin.token });
    expect(rotate.status).toBe(400);
    expect(rotate.body.error).toBe('oauth_client_not_confidential');
  });

  it('rotating the secret returns a new one once and the old one no longer matches', async () => {
    const { t, admin } = await setup();
    const created = await t.call('POST', '/admin/oauth-clients', { token: admin.token, body: BODY });
    const id = created.body.client.id;
    const rotated = await t.call('POST', `/admin/oauth-clients/${id}/secret`, { token: admin.token });
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.body.clientSecret).toMatch(/^svc_cs_/);
    expect(rotated.body.clientSecret).not.toBe(created.body.clientSecret);
    const stored = await row(t, id);
    expect(oauthSecretMatches('client-secret', stored.secretHash!, created.body.clientSecret)).toBe(false);
    expect(oauthSecretMatches('client-secret', stored.secretHash!, rotated.body.clientSecret)).toBe(true);
    const [ev] = await t.api.deps.db
      .select()
      .from(authEvents)
      .where(eq(authEvents.type, 'oauth_client_secret_rotated'));
    expect(ev?.metadata).toEqual({ clientId: id });
  });

  it('patches name, redirect URIs and scopes (audited), refuses an empty patch and a type change', async () => {
    const { t, admin } = await setup();
    const id = (await t.call('POST', '/admin/oauth-clients', { token: admin.token, body: BODY })).body.client.id;
    const res = await t.call('PATCH', `/admin/oauth-clients/${id}`, {
      token: admin.token,
      body: { name: 'Notes 2', redirectUris: ['https://notes.example/cb2'], scopes: ['openid'] },
    });
    expect(res.status).toBe(200);
    expect(res.body.client).toMatchObject({
      name: 'Notes 2',
      redirectUris: ['https://notes.example/cb2'],
      scopes: ['openid'],
    });
    const [ev] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'oauth_client_updated'));
    expect(ev?.metadata).toEqual({ clientId: id, changedFields: ['name', 'redirectUris', 'scopes'] });
    const empty = await t.call('PATCH', `/admin/oauth-clients/${id}`, { token: admin.token, body: {} });
    expect(empty.body.error).toBe('no_changes');
    const typeChange = await t.call('PATCH', `/admin/oauth-clients/${id}`, {
      token: admin.token,
      body: { type: 'public' },
    });
    expect(typeChange.body.error).toBe('invalid_request');
    const badUri = await t.call('PATCH', `/admin/oauth-clients/${id}`, {
      token: admin.token,
      body: { redirectUris: ['https://notes.example/cb#x'] },
    });
    expect(badUri.status).toBe(400);
    expect(badUri.body.details.issues[0].path).toEqual(['redirectUris', 0]);
    const publicMethod = await t.call('PATCH', `/admin/oauth-clients/${id}`, {
      token: admin.token,
      body: { tokenEndpointAuthMethod: 'none' },
    });
    expect(publicMethod.body.details.issues[0].path).toEqual(['tokenEndpointAuthMethod']);
  });

  it('deletes a client (audited); unknown ids are 404 oauth_client_not_found on every route', async () => {
    const { t, admin } = await setup();
    const id = (await t.call('POST', '/admin/oauth-clients', { token: admin.token, body: BODY })).body.client.id;
    const del = await t.call('DELETE', `/admin/oauth-clients/${id}`, { token: admin.token });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ message: 'Success' });
    expect(await t.api.deps.db.select().from(oauthClients)).toHaveLength(0);
    for (const [method, path, body] of [
      ['GET', `/admin/oauth-clients/${id}`, undefined],
      ['PATCH', `/admin/oauth-clients/${id}`, { name: 'x' }],
      ['DELETE', `/admin/oauth-clients/${id}`, undefined],
      ['POST', `/admin/oauth-clients/${id}/secret`, undefined],
    ] as const) {
      const res = await t.call(method, path, { token: admin.token, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ error: 'oauth_client_not_found', message: 'OAuth client not found' });
    }
  });

  it('pages the list newest first and filters by registration', async () => {
    const { t, admin } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      ids.push(
        (await t.call('POST', '/admin/oauth-clients', { token: admin.token, body: { ...BODY, name: `c${i}` } })).body
          .client.id,
      );
    }
    const page = await t.call('GET', '/admin/oauth-clients?limit=2&offset=1', { token: admin.token });
    expect(page.body.total).toBe(3);
    expect(page.body.clients.map((c: { id: string }) => c.id)).toEqual([ids[1], ids[0]]);
    const dynamic = await t.call('GET', '/admin/oauth-clients?registration=dynamic', { token: admin.token });
    expect(dynamic.body).toEqual({ clients: [], total: 0 });
    expect((await t.call('GET', '/admin/oauth-clients?limit=0', { token: admin.token })).status).toBe(400);
  });

  it('scopes: standard, the operator’s custom scopes and the resources’ scopes; anything else is refused', async () => {
    const { t, admin } = await setup();
    const create = (scopes: string[]) =>
      t.call('POST', '/admin/oauth-clients', { token: admin.token, body: { ...BODY, scopes } });
    expect((await create(['notes.read'])).status).toBe(400);
    await setOAuthServer(t, {
      scopes: [{ name: 'notes.read', description: 'Read your notes' }],
      resources: [{ uri: 'https://mcp.example/mcp', name: 'MCP', scopes: ['mcp:tools'] }],
    });
    expect((await create(['openid', 'offline_access', 'notes.read', 'mcp:tools'])).status).toBe(201);
    const bad = await create(['openid', 'admin']);
    expect(bad.status).toBe(400);
    expect(bad.body.details.issues[0]).toMatchObject({ path: ['scopes'] });
  });

  it('needs admin:read to read and admin:write to write', async () => {
    const t = await makeApi();
    const reader = await signedIn(t, ['admin:read']);
    const user = await signedIn(t);
    expect((await t.call('GET', '/admin/oauth-clients', { token: reader.token })).status).toBe(200);
    expect((await t.call('POST', '/admin/oauth-clients', { token: reader.token, body: BODY })).status).toBe(403);
    expect((await t.call('GET', '/admin/oauth-clients', { token: user.token })).status).toBe(403);
    expect((await t.call('GET', '/admin/oauth-clients')).status).toBe(401);
  });
});
