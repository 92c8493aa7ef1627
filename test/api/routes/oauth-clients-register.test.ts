/**
 * RFC 7591 dynamic client registration, `POST /oauth2/register`
 * (docs/oauth-provider.md, "Clients"): off by default, rate-limited per IP
 * when on, RFC 7591 fields and errors, registered clients marked dynamic,
 * never skipping consent, and purged when unused.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { oauthSecretMatches } from '../../../src/crypto/oauth-server.js';
import { authEvents, oauthClients, oauthConsents } from '../../../src/db/schema.js';
import { runMaintenance } from '../../../src/services/maintenance.js';
import { signedIn } from '../../helpers/admin.js';
import { createUser } from '../../helpers/factories.js';
import { makeApi, type TestApi } from '../../helpers/make-app.js';
import { setOAuthServer } from '../../helpers/oauth-server.js';
import { serviceToken } from '../../helpers/service-token.js';

const MCP = {
  client_name: 'MCP Inspector',
  redirect_uris: ['http://localhost:6274/oauth/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  scope: 'openid mcp:tools',
};
const RESOURCES = [{ uri: 'https://mcp.example/mcp', name: 'MCP', scopes: ['mcp:tools'] }];
const DAY = 86_400_000;

/** As the adapter forwards it: the service token and the browser's IP. */
const register = async (t: TestApi, body: unknown, ip = '203.0.113.7') =>
  t.call('POST', '/oauth2/register', {
    body,
    headers: { 'x-svc-service-token': await serviceToken(t.clock.now()), 'x-svc-client-ip': ip },
  });

async function enabled(perIpPerHour = 10) {
  const t = await makeApi();
  await setOAuthServer(t, {
    resources: RESOURCES,
    scopes: [{ name: 'admin.all', description: 'First-party only' }],
    dynamicRegistration: { enabled: true, perIpPerHour, unusedExpiryDays: 30 },
  });
  return t;
}

const row = async (t: TestApi, id: string) =>
  (await t.api.deps.db.select().from(oauthClients).where(eq(oauthClients.id, id)))[0];

describe('POST /oauth2/register', () => {
  it('is off by default, and while only the provider is on: 404 oauth_registration_disabled, nothing stored', async () => {
    const t = await makeApi();
    const off = await register(t, MCP);
    expect(off.status).toBe(404);
    expect(off.body).toEqual({
      error: 'oauth_registration_disabled',
      message: 'Dynamic client registration is not enabled',
    });
    await setOAuthServer(t, { resources: RESOURCES });
    expect((await register(t, MCP)).body.error).toBe('oauth_registration_disabled');
    await setOAuthServer(t, {
      enabled: false,
      dynamicRegistration: { enabled: true, perIpPerHour: 10, unusedExpiryDays: 30 },
    });
    expect((await register(t, MCP)).body.error).toBe('oauth_registration_disabled');
    expect(await t.api.deps.db.select().from(oauthClients)).toHaveLength(0);
  });

  it('registers a public client with the RFC 7591 answer, marked dynamic and never skipping consent', async () => {
    const t = await enabled();
    const res = await register(t, MCP);
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      client_id: expect.stringMatching(/^svc_ci_/),
      client_id_issued_at: Math.floor(t.clock.now() / 1000),
      client_name: 'MCP Inspector',
      redirect_uris: MCP.redirect_uris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'openid mcp:tools',
    });
    const stored = await row(t, res.body.client_id);
    expect(stored).toMatchObject({ registration: 'dynamic', skipConsent: false, type: 'public', secretHash: null });
    // skip_consent-like metadata from the requester is ignored.
    const sneaky = await register(t, { ...MCP, skip_consent: true, skipConsent: true, registration: 'admin' });
    expect(await row(t, sneaky.body.client_id)).toMatchObject({ registration: 'dynamic', skipConsent: false });
    // Nor can an administrator make a dynamic client skip consent: anyone could have registered it.
    const admin = await signedIn(t, ['admin']);
    const patched = await t.call('PATCH', `/admin/oauth-clients/${res.body.client_id}`, {
      token: admin.token,
      body: { skipConsent: true },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.details.issues[0].path).toEqual(['skipConsent']);
    expect(await row(t, res.body.client_id)).toMatchObject({ skipConsent: false });
    const [ev] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'oauth_client_registered'));
    expect(ev).toMatchObject({
      ipAddress: '203.0.113.7',
      metadata: { clientId: res.body.client_id, clientType: 'public' },
    });
  });

  it('a confidential registration gets a secret once (expires_at 0), stored only as its hash', async () => {
    const t = await enabled();
    const res = await register(t, {
      redirect_uris: ['https://tool.example/cb'],
      client_uri: 'https://tool.example',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      client_secret: expect.stringMatching(/^svc_cs_/),
      client_secret_expires_at: 0,
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code'],
      client_name: 'tool.example',
      client_uri: 'https://tool.example',
      scope: 'openid email profile phone offline_access mcp:tools',
    });
    const stored = (await row(t, res.body.client_id))!;
    expect(stored.type).toBe('confidential');
    expect(JSON.stringify(stored)).not.toContain(res.body.client_secret);
    expect(oauthSecretMatches('client-secret', stored.secretHash!, res.body.client_secret)).toBe(true);
    const events = JSON.stringify(await t.api.deps.db.select().from(authEvents));
    expect(events).not.toContain(res.body.client_secret);
  });

  it.each([
    [{ ...MCP, redirect_uris: undefined }, 'invalid_redirect_uri'],
    [{ ...MCP, redirect_uris: [] }, 'invalid_redirect_uri'],
    [{ ...MCP, redirect_uris: ['https://a.example/cb#x'] }, 'invalid_redirect_uri'],
    [{ ...MCP, redirect_uris: ['https://*.example/cb'] }, 'invalid_redirect_uri'],
    [{ ...MCP, redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
    [{ ...MCP, redirect_uris: 'https://a.example/cb' }, 'invalid_redirect_uri'],
    [{ ...MCP, token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata'],
    [{ ...MCP, grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
    [{ ...MCP, grant_types: ['implicit', 'authorization_code'] }, 'invalid_client_metadata'],
    [{ ...MCP, grant_types: ['refresh_token'] }, 'invalid_client_metadata'],
    [{ ...MCP, response_types: ['token'] }, 'invalid_client_metadata'],
    // An operator's custom scope is for clients an admin created, not for anyone who registers.
    [{ ...MCP, scope: 'openid admin.all' }, 'invalid_client_metadata'],
    [{ ...MCP, scope: 'openid unknown' }, 'invalid_client_metadata'],
    [{ ...MCP, client_uri: 'javascript:alert(1)' }, 'invalid_client_metadata'],
    [{ ...MCP, client_name: 42 }, 'invalid_client_metadata'],
    [{ ...MCP, client_name: 'x'.repeat(101) }, 'invalid_client_metadata'],
    [[MCP], 'invalid_client_metadata'],
  ])('refuses %j with %s, in the RFC format', async (body, error) => {
    const t = await enabled(100);
    const res = await register(t, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error, error_description: expect.any(String) });
    expect(await t.api.deps.db.select().from(oauthClients)).toHaveLength(0);
  });

  it('limits registrations per client IP per hour (429 with Retry-After), other IPs unaffected, reset after the hour', async () => {
    const t = await enabled(2);
    t.clock.set(Math.ceil(t.clock.now() / 3_600_000) * 3_600_000);
    expect((await register(t, MCP)).status).toBe(201);
    expect((await register(t, { bad: true })).status).toBe(400); // refused requests count too
    const limited = await register(t, MCP);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // The same RateLimit-* headers as every other limiter's 429 (contract §3.19).
    expect(limited.headers.get('ratelimit-limit')).toBe('2');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expect((await register(t, MCP, '198.51.100.9')).status).toBe(201);
    t.clock.advance(3_600_000);
    expect((await register(t, MCP)).status).toBe(201);
    expect(await t.api.deps.db.select().from(oauthClients)).toHaveLength(3);
  });

  it('the maintenance purge deletes dynamic clients unused for unusedExpiryDays, with their consents; admin clients stay', async () => {
    const t = await enabled(100);
    const user = await createUser(t);
    const never = (await register(t, { ...MCP, client_name: 'never used' })).body.client_id;
    const used = (await register(t, { ...MCP, client_name: 'used' })).body.client_id;
    const admin = 'svc_ci_admin';
    const now = new Date(t.clock.now());
    await t.api.deps.db.insert(oauthClients).values({
      ...(await row(t, never))!,
      id: admin,
      registration: 'admin',
    });
    await t.api.deps.db
      .insert(oauthConsents)
      .values({ userId: user.id, clientId: never, scope: 'openid', createdAt: now, updatedAt: now });
    t.clock.advance(20 * DAY);
    await t.api.deps.db
      .update(oauthClients)
      .set({ lastUsedAt: new Date(t.clock.now()) })
      .where(eq(oauthClients.id, used));
    t.clock.advance(10 * DAY + 1000);
    expect(await runMaintenance(t.api.deps.db, t.clock.now())).toBeGreaterThanOrEqual(1);
    const left = (await t.api.deps.db.select().from(oauthClients)).map((c) => c.id).sort();
    expect(left).toEqual([admin, used].sort());
    expect(await t.api.deps.db.select().from(oauthConsents)).toHaveLength(0);
    // The operator's unusedExpiryDays is the one applied.
    await setOAuthServer(t, { dynamicRegistration: { enabled: true, perIpPerHour: 100, unusedExpiryDays: 5 } });
    t.clock.advance(5 * DAY + 1000);
    await runMaintenance(t.api.deps.db, t.clock.now());
    expect((await t.api.deps.db.select().from(oauthClients)).map((c) => c.id)).toEqual([admin]);
  });
});
