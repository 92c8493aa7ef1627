/** The OAuth provider's routes for the response-drift suite: one full flow through each documented operation. */
import { expect } from 'vitest';
import type { SignedIn } from '../helpers/admin.js';
import type { TestApi } from '../helpers/make-app.js';
import {
  authorizeCall,
  authParams,
  consentCall,
  createOAuthClient,
  formCall,
  pkce,
  FULL_PROVIDER_CONFIG,
  query,
  redeem,
  refreshCall,
  RESOURCE_A,
} from '../helpers/oauth-server.js';

export async function oauthServerFlow(t: TestApi, admin: SignedIn, user: SignedIn) {
  const on = await t.call('PATCH', '/system-config/admin', {
    token: admin.token,
    body: { oauth_server: FULL_PROVIDER_CONFIG },
  });
  expect(on.status).toBe(200);
  expect((await t.call('GET', '/oauth2/metadata')).status).toBe(200);
  const client = await createOAuthClient(t);
  const rs = await createOAuthClient(t, { name: 'Resource server' });
  const { verifier, challenge } = pkce();
  expect((await authorizeCall(t, authParams(client, challenge))).body.action).toBe('login');
  const asked = await authorizeCall(t, authParams(client, challenge, { scope: 'openid email' }), user.token);
  expect(asked.body.action).toBe('consent');
  const allowed = await consentCall(t, user.token, asked.body.requestId, 'allow');
  expect(allowed.status).toBe(200);
  const tokens = (await redeem(t, client, query(allowed.body.location).get('code')!, verifier)).body;
  expect(tokens.refresh_token).toBeTruthy();
  for (const method of ['GET', 'POST'])
    expect((await t.call(method, '/oauth2/userinfo', { token: tokens.access_token })).status).toBe(200);
  const next = await refreshCall(t, client, tokens.refresh_token);
  expect(next.status).toBe(200);
  expect((await formCall(t, '/oauth2/introspect', { token: next.body.access_token }, rs)).body.active).toBe(true);
  expect((await formCall(t, '/oauth2/revoke', { token: next.body.refresh_token }, client)).status).toBe(200);
  const again = await authorizeCall(
    t,
    authParams(client, challenge, { resource: RESOURCE_A, scope: 'openid' }),
    user.token,
  );
  expect(again.body.action).toBe('consent');
}
