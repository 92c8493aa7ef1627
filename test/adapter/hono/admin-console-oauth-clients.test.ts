/**
 * The OAuth provider's clients through the adapters: the console's OAuth
 * clients screen on the Hono and Express mounts (the secret in the create
 * answer only, dynamic clients marked), and the admin routes, the user's apps
 * and dynamic registration through `svcAdapter` with cookies and with the
 * bearer transport.
 */
import express from 'express';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { svcExpressAdapter, svcExpressAdminConsole } from '../../../adapter/express/index.js';
import { svcAdapter, svcAdminConsole } from '../../../adapter/hono/index.js';
import { oauthConsents } from '../../../src/db/schema.js';
import { closeServers, listen } from '../express/harness.js';
import { APP_ORIGIN, makeHarness, signedInBrowser, type Mount } from '../helpers.js';
import { setOAuthServer } from '../../helpers/oauth-server.js';

afterEach(closeServers);

const honoMount: Mount = async (opts) => {
  const app = new Hono();
  app.route('/auth', svcAdapter(opts));
  app.route('/admin', svcAdminConsole(opts));
  return { request: async (path, init) => app.request(`http://localhost:3000${path}`, init), close: async () => {} };
};

const expressMount: Mount = async (opts) => {
  const app = express();
  app.use('/auth', svcExpressAdapter(opts));
  app.use('/admin', svcExpressAdminConsole(opts));
  const { server, base } = await listen(app);
  return {
    request: (path, init) => fetch(base + path, { ...init, redirect: 'manual' }),
    close: async () => server.closeAllConnections(),
  };
};

const SAME_ORIGIN = { origin: APP_ORIGIN, 'sec-fetch-site': 'same-origin' };
const BODY = { name: 'Notes', type: 'confidential', redirectUris: ['https://notes.example/cb'], scopes: ['openid'] };

describe.each([
  ['Hono', honoMount],
  ['Express', expressMount],
])('OAuth clients screen (%s console)', (_name, mount) => {
  it('creates a client with the secret in that answer only, lists it, marks dynamic ones, read-only for readers', async () => {
    const h = await makeHarness({}, {}, { mount });
    const admin = await signedInBrowser(h, { roles: ['admin'] });
    const reader = await signedInBrowser(h, { roles: ['admin:read'] });
    const empty = await h.send('GET', '/admin/oauth-clients', { cookies: admin.cookies });
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('No OAuth clients yet.');
    expect(empty.text).toContain('id="oauth-client-form"');
    expect(empty.text).toContain('href="/admin/oauth-clients"');

    const created = await h.send('POST', '/admin/api/admin/oauth-clients', {
      cookies: admin.cookies,
      headers: SAME_ORIGIN,
      body: BODY,
    });
    expect(created.status).toBe(201);
    const secret = created.body.clientSecret as string;
    expect(secret).toMatch(/^svc_cs_/);
    const cross = await h.send('POST', '/admin/api/admin/oauth-clients', {
      cookies: admin.cookies,
      headers: { origin: 'https://evil.example' },
      body: BODY,
    });
    expect([cross.status, cross.body.error]).toEqual([403, 'cross_site_request_blocked']);

    await setOAuthServer(h.t, { dynamicRegistration: { enabled: true, perIpPerHour: 10, unusedExpiryDays: 30 } });
    const registered = await h.send('POST', '/auth/oauth2/register', {
      body: {
        client_name: 'Some MCP client',
        redirect_uris: ['http://127.0.0.1:3334/cb'],
        token_endpoint_auth_method: 'none',
      },
    });
    expect(registered.status).toBe(201);

    const page = await h.send('GET', '/admin/oauth-clients', { cookies: admin.cookies });
    expect(page.text).toContain('Notes');
    expect(page.text).toContain('https://notes.example/cb');
    expect(page.text).toContain(`data-api="/admin/oauth-clients/${created.body.client.id}/secret"`);
    expect(page.text).toMatch(/Some MCP client<\/strong>[^\n]*<span class="pill"[^>]*>dynamic<\/span>/);
    expect(page.text).not.toContain(secret.slice('svc_cs_'.length));
    const dynamicOnly = await h.send('GET', '/admin/oauth-clients?registration=dynamic', { cookies: admin.cookies });
    expect(dynamicOnly.text).not.toContain('https://notes.example/cb');

    const readOnly = await h.send('GET', '/admin/oauth-clients', { cookies: reader.cookies });
    expect(readOnly.status).toBe(200);
    expect(readOnly.text).not.toMatch(/data-api=/);
    const js = await h.send('GET', '/admin/assets/console.js');
    expect(js.text).toContain('clientSecret');
    expect(js.text).toContain('secret-copy');
  });
});

describe('OAuth client routes through svcAdapter', () => {
  it('admin routes and the user’s apps answer with cookies and with the bearer transport', async () => {
    const h = await makeHarness();
    const admin = await signedInBrowser(h, { roles: ['admin'] });
    const bearer = { authorization: `Bearer ${admin.env.token}`, 'x-svc-auth-transport': 'bearer' };
    const created = await h.send('POST', '/auth/admin/oauth-clients', {
      headers: { ...bearer, ...SAME_ORIGIN },
      body: BODY,
    });
    expect(created.status).toBe(201);
    expect(created.body.clientSecret).toMatch(/^svc_cs_/);
    const id = created.body.client.id as string;
    const viaCookies = await h.send('GET', `/auth/admin/oauth-clients/${id}`, { cookies: admin.cookies });
    expect(viaCookies.status).toBe(200);
    expect(viaCookies.body.client.name).toBe('Notes');

    const now = new Date(h.t.clock.now());
    await h.t.api.deps.db
      .insert(oauthConsents)
      .values({ userId: admin.user.id, clientId: id, scope: 'openid', createdAt: now, updatedAt: now });
    const apps = await h.send('GET', '/auth/users/me/oauth-apps', { cookies: admin.cookies });
    expect(apps.status).toBe(200);
    expect(apps.body.apps.map((a: { client: { id: string } }) => a.client.id)).toEqual([id]);
    const revoked = await h.send('DELETE', `/auth/users/me/oauth-apps/${id}`, {
      headers: { ...bearer, ...SAME_ORIGIN },
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ message: 'Success', revokedGrants: 0 });
    const after = await h.send('GET', '/auth/users/me/oauth-apps', { headers: bearer });
    expect(after.body).toEqual({ apps: [], total: 0 });
  });
});
