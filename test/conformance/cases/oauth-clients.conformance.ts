/**
 * The OAuth provider's clients (docs/oauth-provider.md, "Clients" and "The
 * user's apps page"), black box: the admin API (secret shown once, rotation,
 * redirect URI refusals, 404s), RFC 7591 dynamic registration (off by
 * default; turned on through the admin config PATCH; the RFC answer and
 * errors; the per-IP hourly limit on one device) and the user's apps list.
 * The config is put back as it was afterwards. Owner index 11.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base, call, device, expectError, expectOk, signUp, signUpOwner, type Session } from '../client.js';

let admin: Session;
let original: Record<string, unknown>;

const patchOAuthServer = async (value: Record<string, unknown>) =>
  expectOk(await call('PATCH', '/system-config/admin', { token: admin.token, body: { oauth_server: value } }));

beforeAll(async () => {
  admin = await signUpOwner(11);
  const cfg = await call('GET', '/system-config/admin', { token: admin.token });
  expectOk(cfg);
  original = cfg.body.oauth_server;
});
afterAll(async () => {
  if (original) await patchOAuthServer(original);
});

const BODY = {
  name: 'Conformance notes',
  type: 'confidential',
  redirectUris: ['https://notes.example/callback'],
  scopes: ['openid', 'email'],
};

describe('OAuth clients: admin API', () => {
  it('refuses a plain user; creates a client whose secret is shown once; rotation replaces it', async () => {
    const user = await signUp();
    expectError(await call('GET', '/admin/oauth-clients', { token: user.token }), 403, 'forbidden');
    expectError(await call('POST', '/admin/oauth-clients', { token: user.token, body: BODY }), 403, 'forbidden');

    const created = await call('POST', '/admin/oauth-clients', { token: admin.token, body: BODY });
    expectOk(created, 201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const { client, clientSecret } = created.body as { client: { id: string }; clientSecret: string };
    expect(clientSecret).toMatch(/^svc_cs_/);
    expect(created.body.client).toMatchObject({ name: BODY.name, type: 'confidential', registration: 'admin' });
    const read = await call('GET', `/admin/oauth-clients/${client.id}`, { token: admin.token });
    expectOk(read);
    const list = await call('GET', '/admin/oauth-clients?registration=admin', { token: admin.token });
    expectOk(list);
    expect(list.body.clients.some((c: { id: string }) => c.id === client.id)).toBe(true);
    for (const r of [read, list]) expect(JSON.stringify(r.body)).not.toContain(clientSecret.slice('svc_cs_'.length));

    const rotated = await call('POST', `/admin/oauth-clients/${client.id}/secret`, { token: admin.token });
    expectOk(rotated);
    expect(rotated.body.clientSecret).toMatch(/^svc_cs_/);
    expect(rotated.body.clientSecret).not.toBe(clientSecret);

    const bad = await call('PATCH', `/admin/oauth-clients/${client.id}`, {
      token: admin.token,
      body: { redirectUris: ['https://notes.example/cb', 'https://*.example/cb'] },
    });
    expectError(bad, 400, 'invalid_request');
    expect(bad.body.details.issues[0].path).toEqual(['redirectUris', 1]);
    expectOk(
      await call('PATCH', `/admin/oauth-clients/${client.id}`, { token: admin.token, body: { name: 'Renamed' } }),
    );

    const publicClient = await call('POST', '/admin/oauth-clients', {
      token: admin.token,
      body: { ...BODY, type: 'public', redirectUris: ['com.example.notes:/callback'] },
    });
    expectOk(publicClient, 201);
    expect(publicClient.body.clientSecret).toBeUndefined();
    expectError(
      await call('POST', `/admin/oauth-clients/${publicClient.body.client.id}/secret`, { token: admin.token }),
      400,
      'oauth_client_not_confidential',
    );

    expectOk(await call('DELETE', `/admin/oauth-clients/${client.id}`, { token: admin.token }));
    expectError(
      await call('GET', `/admin/oauth-clients/${client.id}`, { token: admin.token }),
      404,
      'oauth_client_not_found',
    );
  });

  it('lists no apps for a fresh user, and revoking one they never authorized is 404', async () => {
    const user = await signUp();
    const apps = await call('GET', '/users/me/oauth-apps', { token: user.token });
    expectOk(apps);
    expect(apps.body).toEqual({ apps: [], total: 0 });
    expectError(
      await call('DELETE', '/users/me/oauth-apps/svc_ci_unknown', { token: user.token }),
      404,
      'oauth_client_not_found',
    );
    expectError(await call('GET', '/users/me/oauth-apps'), 401, 'unauthorized');
  });
});

describe('OAuth clients: dynamic registration (RFC 7591)', () => {
  const MCP = {
    client_name: 'Conformance MCP client',
    redirect_uris: ['http://127.0.0.1:43210/callback'],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    scope: 'openid offline_access',
  };

  it('is off until an operator turns it on', async () => {
    if (original['enabled'] && (original['dynamicRegistration'] as { enabled: boolean }).enabled) return;
    expectError(await call('POST', '/oauth2/register', { body: MCP }), 404, 'oauth_registration_disabled');
  });

  it('registers a dynamic public client, refuses bad metadata in the RFC format, and limits each IP per hour', async () => {
    await patchOAuthServer({
      ...original,
      enabled: true,
      issuer: original['issuer'] ?? `${base}/auth`,
      dynamicRegistration: { enabled: true, perIpPerHour: 3, unusedExpiryDays: 30 },
    });
    const d = device();
    const registered = await call('POST', '/oauth2/register', { body: MCP, device: d });
    expectOk(registered, 201);
    expect(registered.headers.get('cache-control')).toBe('no-store');
    expect(registered.body).toMatchObject({
      client_id: expect.stringMatching(/^svc_ci_/),
      client_id_issued_at: expect.any(Number),
      client_name: MCP.client_name,
      redirect_uris: MCP.redirect_uris,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: 'openid offline_access',
    });
    expect(registered.body.client_secret).toBeUndefined();
    const seen = await call('GET', `/admin/oauth-clients/${registered.body.client_id}`, { token: admin.token });
    expectOk(seen);
    expect(seen.body.client).toMatchObject({ registration: 'dynamic', skipConsent: false, type: 'public' });

    const badUri = await call('POST', '/oauth2/register', {
      body: { ...MCP, redirect_uris: ['https://app.example/cb#fragment'] },
      device: d,
    });
    expect([badUri.status, badUri.body.error]).toEqual([400, 'invalid_redirect_uri']);
    expect(typeof badUri.body.error_description).toBe('string');
    const badMeta = await call('POST', '/oauth2/register', {
      body: { ...MCP, grant_types: ['client_credentials'] },
      device: d,
    });
    expect([badMeta.status, badMeta.body.error]).toEqual([400, 'invalid_client_metadata']);

    // Three requests from this device so far: the fourth is refused, another device is not.
    const limited = await call('POST', '/oauth2/register', { body: MCP, device: d });
    expectError(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expectOk(await call('POST', '/oauth2/register', { body: MCP }), 201);
  });
});
