/**
 * The OAuth provider's client management (docs/oauth-provider.md, "Clients")
 * for the response drift test: every operation once with a success. The
 * user's consent is inserted directly, as the authorization flow leaves it.
 */
import { expect } from 'vitest';
import { oauthConsents } from '../../src/db/schema.js';
import type { SignedIn } from '../helpers/admin.js';
import type { TestApi } from '../helpers/make-app.js';
import { setOAuthServer } from '../helpers/oauth-server.js';

export async function oauthClientFlow(t: TestApi, admin: SignedIn, user: SignedIn) {
  const token = admin.token;
  const body = { name: 'Drift', type: 'confidential', redirectUris: ['https://drift.example/cb'], scopes: ['openid'] };
  const created = await t.call('POST', '/admin/oauth-clients', { token, body });
  expect(created.status).toBe(201);
  const id = created.body.client.id as string;
  expect((await t.call('GET', '/admin/oauth-clients?registration=admin', { token })).status).toBe(200);
  expect((await t.call('GET', `/admin/oauth-clients/${id}`, { token })).status).toBe(200);
  expect((await t.call('PATCH', `/admin/oauth-clients/${id}`, { token, body: { name: 'Drift 2' } })).status).toBe(200);
  expect((await t.call('POST', `/admin/oauth-clients/${id}/secret`, { token })).status).toBe(200);

  const now = new Date(t.clock.now());
  await t.api.deps.db
    .insert(oauthConsents)
    .values({ userId: user.user.id, clientId: id, scope: 'openid', createdAt: now, updatedAt: now });
  expect((await t.call('GET', '/users/me/oauth-apps', { token: user.token })).status).toBe(200);
  expect((await t.call('DELETE', `/users/me/oauth-apps/${id}`, { token: user.token })).status).toBe(200);
  expect((await t.call('DELETE', `/admin/oauth-clients/${id}`, { token })).status).toBe(200);

  await setOAuthServer(t, { dynamicRegistration: { enabled: true, perIpPerHour: 10, unusedExpiryDays: 30 } });
  const registered = await t.call('POST', '/oauth2/register', {
    body: { client_name: 'Drift tool', redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' },
  });
  expect(registered.status).toBe(201);
  await setOAuthServer(t, { enabled: false });
}
