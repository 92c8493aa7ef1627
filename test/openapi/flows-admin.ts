/** Admin, metrics and system-config flows for the response drift test. */
import { expect } from 'vitest';
import type { SignedIn } from '../helpers/admin.js';
import type { TestApi } from '../helpers/make-app.js';
import { oauthRoundTrip, providerConfig } from '../helpers/oauth.js';
import { issueIdToken, newRawNonce } from '../helpers/id-token.js';
import type { TestOidcProvider } from '../helpers/oidc-provider.js';
import { assertWith, registerPasskey } from '../helpers/passkeys.js';

const okStatus = async (t: TestApi, method: string, path: string, token: string, status = 200, body?: unknown) => {
  const res = await t.call(method, path, { token, ...(body !== undefined ? { body } : {}) });
  expect(res.status, `${method} ${path}`).toBe(status);
  return res;
};

export async function adminUserFlow(t: TestApi, admin: SignedIn, plain: SignedIn) {
  const a = admin.token;
  expect((await t.call('GET', '/admin/users', { token: plain.token })).status).toBe(403);
  await okStatus(t, 'GET', '/admin/users?limit=5&search=example', a);
  await okStatus(t, 'GET', '/admin/users?limit=0', a, 400);
  const created = await okStatus(t, 'POST', '/admin/users', a, 201, {
    email: 'made-by-admin@example.com',
    roles: ['user'],
  });
  const id: string = created.body.user.id;
  await okStatus(t, 'POST', '/admin/users', a, 409, { email: 'made-by-admin@example.com', roles: ['user'] });
  await okStatus(t, 'GET', `/admin/users/${plain.user.id}`, a);
  await okStatus(t, 'GET', '/admin/users/missing', a, 404);
  await okStatus(t, 'PATCH', `/admin/users/${id}`, a, 200, { phone: '+14155550100', emailVerified: true });
  await okStatus(t, 'PATCH', `/admin/users/${id}`, a, 400, { roles: ['no-such-role'] });
  await okStatus(t, 'GET', `/admin/users/${plain.user.id}/anomalies`, a);
  await okStatus(t, 'GET', '/admin/sessions', a);
  await okStatus(t, 'GET', `/admin/sessions/${plain.user.id}`, a);
  await okStatus(t, 'DELETE', '/admin/sessions/by-id/missing', a, 404);
  await okStatus(t, 'DELETE', `/admin/sessions/by-id/${plain.sessionId}`, a);
  await okStatus(t, 'DELETE', `/admin/sessions/${plain.user.id}/revoke-all`, a);
  await okStatus(t, 'GET', '/admin/auth-events?limit=20&type=login', a);
  await okStatus(t, 'GET', '/admin/auth-events?from=2020-01-01T00:00:00Z&to=2019-01-01T00:00:00Z', a, 400);
  await okStatus(t, 'GET', '/admin/credential-count', a);
  await okStatus(t, 'DELETE', `/admin/users/${id}`, a);
}

/** Device replacement needs a fresh step-up: the admin registers a passkey and steps up first. */
export async function deviceReplacementFlow(t: TestApi, admin: SignedIn, target: SignedIn) {
  const body = { proofing: { method: 'in_person', evidenceRef: 'ticket-42' } };
  const path = `/admin/users/${target.user.id}/recovery/device-replacement`;
  const { authenticator } = await registerPasskey(t, admin.token);
  await okStatus(t, 'POST', path, admin.token, 403, body);
  const stepUp = await assertWith(t, '/step-up/webauthn', admin.token, authenticator);
  expect(stepUp.finish.status).toBe(200);
  await okStatus(t, 'POST', path, admin.token, 400, { proofing: { method: 'remote_exception', evidenceRef: 'x' } });
  await okStatus(t, 'POST', path, admin.token, 200, body);
}

export async function adminOrganizationFlow(t: TestApi, admin: SignedIn, member: SignedIn) {
  const a = admin.token;
  const created = await okStatus(t, 'POST', '/admin/organizations', a, 201, { name: 'Admin Org' });
  const id: string = created.body.organization.id;
  await okStatus(t, 'GET', '/admin/organizations?search=Admin', a);
  await okStatus(t, 'GET', `/admin/organizations/${id}`, a);
  await okStatus(t, 'PATCH', `/admin/organizations/${id}`, a, 200, { metadata: { tier: 'gold' } });
  await okStatus(t, 'POST', `/admin/organizations/${id}/members`, a, 201, { userId: member.user.id, roles: ['owner'] });
  await okStatus(t, 'GET', `/admin/organizations/${id}/members`, a);
  await okStatus(t, 'PATCH', `/admin/organizations/${id}/members/${member.user.id}`, a, 400, {
    roles: ['owner', 'no such role!'],
  });
  await okStatus(t, 'DELETE', `/admin/organizations/${id}`, a);
  await okStatus(t, 'DELETE', `/admin/organizations/${id}`, a, 404);
  const other = await okStatus(t, 'POST', '/admin/organizations', a, 201, { name: 'Second Org' });
  const oid: string = other.body.organization.id;
  await okStatus(t, 'POST', `/admin/organizations/${oid}/members`, a, 201, { userId: member.user.id });
  await okStatus(t, 'PATCH', `/admin/organizations/${oid}/members/${member.user.id}`, a, 200, {
    roles: ['member'],
    scopes: ['members:read'],
  });
  await okStatus(t, 'DELETE', `/admin/organizations/${oid}/members/${member.user.id}`, a);
}

export async function metricsFlow(t: TestApi, admin: SignedIn) {
  const a = admin.token;
  await okStatus(t, 'GET', '/internal/auth-events/summary', a);
  await okStatus(t, 'GET', '/internal/auth-events/timeseries?interval=hour', a);
  await okStatus(t, 'GET', '/internal/auth-events/timeseries?interval=week', a, 400);
  await okStatus(t, 'GET', '/internal/auth-events/login-stats', a);
  await okStatus(t, 'GET', '/internal/auth-events/grouped?groupBy=type', a);
  await okStatus(t, 'GET', '/internal/auth-events/grouped', a);
  await okStatus(t, 'GET', '/internal/security/anomalies?limit=5', a);
  await okStatus(t, 'GET', '/internal/metrics/dashboard', a);
}

export async function systemConfigFlow(t: TestApi, admin: SignedIn) {
  const a = admin.token;
  await okStatus(t, 'GET', '/system-config/public', a);
  await okStatus(t, 'GET', '/system-config/roles', a);
  await okStatus(t, 'GET', '/system-config/admin', a);
  await okStatus(t, 'PATCH', '/system-config/admin', a, 400, {});
  await okStatus(t, 'PATCH', '/system-config/admin', a, 400, { not_a_key: 1 });
  await okStatus(t, 'PATCH', '/system-config/admin', a, 200, {
    app_name: 'svc drift',
    login_methods: ['passkey', 'magic_link', 'email_otp', 'phone_otp', 'oauth'],
  });
}

/** Provider admin, then a sign-in through the real test OpenID provider, then the refusals. */
export async function oauthFlow(t: TestApi, admin: SignedIn, op: TestOidcProvider) {
  const a = admin.token;
  const provider = {
    id: 'example',
    name: 'Example',
    clientId: 'client-1',
    clientSecretEnv: 'EXAMPLE_CLIENT_SECRET',
    authorizationUrl: 'https://idp.example.com/authorize',
    tokenUrl: 'https://idp.example.com/token',
    userInfoUrl: 'https://idp.example.com/userinfo',
    scopes: ['openid', 'email'],
    redirectUris: ['http://localhost:3000/oauth/callback'],
  };
  await okStatus(t, 'POST', '/system-config/oauth-providers', a, 201, provider);
  await okStatus(t, 'POST', '/system-config/oauth-providers', a, 409, provider);
  await okStatus(t, 'GET', '/system-config/oauth-providers', a);
  await okStatus(t, 'PATCH', '/system-config/oauth-providers/example', a, 200, { name: 'Example IdP' });
  await okStatus(t, 'PATCH', '/system-config/oauth-providers/missing', a, 404, { name: 'x' });
  await okStatus(t, 'GET', '/oauth/providers', a);
  await okStatus(t, 'POST', '/oauth/example/start', '', 200, { redirectUri: 'http://localhost:3000/oauth/callback' });
  await okStatus(t, 'POST', '/oauth/example/start', '', 400, { redirectUri: 'https://evil.example/cb' });
  await okStatus(t, 'POST', '/oauth/missing/start', '', 404, {});
  await okStatus(t, 'POST', '/oauth/example/callback', '', 400, { code: 'abc', state: 'forged.state' });
  await okStatus(t, 'DELETE', '/system-config/oauth-providers/example', a);
  await okStatus(t, 'POST', '/system-config/oauth-providers', a, 201, providerConfig(op, { issuer: op.issuer }));
  op.setAccount('oauth-user', { email: 'oauth-user@example.com', email_verified: true, name: 'O. Auth' });
  const { callback } = await oauthRoundTrip(t, op, 'oauth-user');
  expect(callback.status).toBe(200);
  // The native form: the platform's ID token and the raw nonce; a replay and a wrong nonce are refused.
  // The provider stamps real time in `iat`; the API's manual clock moves there so the token is not from the future.
  t.clock.set(Math.max(t.clock.now(), Date.now()));
  const nonce = newRawNonce();
  const idToken = await issueIdToken(op, { accountId: 'oauth-user', nonce });
  await okStatus(t, 'POST', '/oauth/testop/id-token', '', 200, { idToken, nonce });
  await okStatus(t, 'POST', '/oauth/testop/id-token', '', 401, { idToken, nonce });
  await okStatus(t, 'POST', '/oauth/testop/id-token', '', 401, {
    idToken: await issueIdToken(op, { accountId: 'oauth-user', nonce: newRawNonce() }),
    nonce,
  });
  await okStatus(t, 'POST', '/oauth/testop/id-token', '', 400, { idToken: 1 });
}
