import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents } from '../../../src/db/schema.js';
import { signedIn } from '../../helpers/admin.js';
import { makeApi } from '../../helpers/make-app.js';
import { staticProvider } from '../../helpers/oauth.js';

const SECRET_VALUE = 'the-real-client-secret-value-0123456789';
const provider = staticProvider;

async function setup(providers: unknown[] = [provider()]) {
  const t = await makeApi({
    env: {
      LOGIN_METHODS: 'passkey,oauth',
      OAUTH_PROVIDERS: JSON.stringify(providers),
      ACME_CLIENT_SECRET: SECRET_VALUE,
    },
  });
  const reader = await signedIn(t, ['admin:read']);
  const writer = await signedIn(t, ['admin:write']);
  const user = await signedIn(t, ['user']);
  return { t, reader, writer, user };
}

const BASE = '/system-config/oauth-providers';

describe('/system-config/oauth-providers', () => {
  it('lists stored providers with secretConfigured and never the secret', async () => {
    const { t, reader } = await setup([provider(), provider({ id: 'other', clientSecretEnv: 'UNSET_CLIENT_SECRET' })]);
    const res = await t.call('GET', BASE, { token: reader.token });
    expect(res.status).toBe(200);
    expect(res.body.providers).toHaveLength(2);
    expect(res.body.providers[0]).toMatchObject({
      id: 'acme',
      clientSecretEnv: 'ACME_CLIENT_SECRET',
      secretConfigured: true,
      enabled: true,
      accountLinking: 'email',
    });
    expect(res.body.providers[1]).toMatchObject({ id: 'other', secretConfigured: false });
    expect(JSON.stringify(res.body)).not.toContain(SECRET_VALUE);
    // Nor does the full config view (the key stores the env variable's name only).
    const all = await t.call('GET', '/system-config/admin', { token: reader.token });
    expect(all.status).toBe(200);
    expect(JSON.stringify(all.body)).not.toContain(SECRET_VALUE);
  });

  it('shows an invalid stored provider without its unknown fields (a pasted secret is never echoed)', async () => {
    const { t, reader } = await setup([provider({ clientSecret: SECRET_VALUE, tokenUrl: 'nope' })]);
    const res = await t.call('GET', BASE, { token: reader.token });
    expect(res.body.providers[0]).toMatchObject({ id: 'acme', valid: false, name: 'Acme' });
    expect(res.body.providers[0].tokenUrl).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain(SECRET_VALUE);
  });

  it('enforces the role gates', async () => {
    const { t, reader, user } = await setup();
    expect((await t.call('GET', BASE)).status).toBe(401);
    expect((await t.call('GET', BASE, { token: user.token })).status).toBe(403);
    const write = await t.call('POST', BASE, { token: reader.token, body: provider({ id: 'new' }) });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ error: 'forbidden', required: ['admin:write'] });
    expect((await t.call('DELETE', `${BASE}/acme`, { token: reader.token })).status).toBe(403);
  });

  it('creates a provider (201, defaults applied), which becomes usable for login at once', async () => {
    const { t, writer } = await setup([]);
    const res = await t.call('POST', BASE, { token: writer.token, body: provider({ id: 'new-idp', name: 'New' }) });
    expect(res.status).toBe(201);
    expect(res.body.provider).toMatchObject({
      id: 'new-idp',
      enabled: true,
      allowSignup: true,
      subjectJsonPath: 'sub',
      secretConfigured: true,
    });
    expect(JSON.stringify(res.body)).not.toContain(SECRET_VALUE);
    expect((await t.call('GET', '/oauth/providers')).body.providers).toEqual([
      { id: 'new-idp', name: 'New', scopes: ['openid', 'email'] },
    ]);
    const [event] = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'system_config_updated'));
    expect(event!.metadata).toMatchObject({
      updatedKeys: ['oauth_providers'],
      action: 'create',
      providerId: 'new-idp',
    });
    expect(event!.actorUserId).toBe(writer.user.id);
    expect(JSON.stringify(event)).not.toContain(SECRET_VALUE);
  });

  it('refuses a duplicate id (409), unknown fields and a secret value in the body (400), and invalid values (400)', async () => {
    const { t, writer } = await setup();
    const dup = await t.call('POST', BASE, { token: writer.token, body: provider() });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: 'already_exists', message: 'OAuth provider already exists' });
    const withSecret = await t.call('POST', BASE, {
      token: writer.token,
      body: provider({ id: 'x1', clientSecret: SECRET_VALUE }),
    });
    expect(withSecret.status).toBe(400);
    expect(withSecret.body.error).toBe('invalid_request');
    expect(JSON.stringify(withSecret.body)).not.toContain(SECRET_VALUE);
    const badUrl = await t.call('POST', BASE, {
      token: writer.token,
      body: provider({ id: 'x2', tokenUrl: 'ftp://idp.example' }),
    });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.details.issues[0].path).toEqual(['tokenUrl']);
    const badId = await t.call('POST', BASE, { token: writer.token, body: provider({ id: 'X' }) });
    expect(badId.status).toBe(400);
  });

  it('patches a provider: merged result re-validated, id immutable, null resets a field, 404 for unknown ids', async () => {
    const { t, writer } = await setup();
    const off = await t.call('PATCH', `${BASE}/acme`, {
      token: writer.token,
      body: { enabled: false, redirectUri: 'https://app.example/cb' },
    });
    expect(off.status).toBe(200);
    expect(off.body.provider).toMatchObject({
      id: 'acme',
      enabled: false,
      redirectUri: 'https://app.example/cb',
      name: 'Acme',
      secretConfigured: true,
    });
    expect(JSON.stringify(off.body)).not.toContain(SECRET_VALUE);
    expect((await t.call('GET', '/oauth/providers')).body.providers).toEqual([]);
    const reset = await t.call('PATCH', `${BASE}/acme`, {
      token: writer.token,
      body: { redirectUri: null, enabled: null },
    });
    expect(reset.body.provider.redirectUri).toBeUndefined();
    expect(reset.body.provider.enabled).toBe(true);
    const rename = await t.call('PATCH', `${BASE}/acme`, { token: writer.token, body: { id: 'renamed' } });
    expect(rename.status).toBe(400);
    const unknown = await t.call('PATCH', `${BASE}/acme`, {
      token: writer.token,
      body: { clientSecret: SECRET_VALUE },
    });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).not.toContain(SECRET_VALUE);
    const bad = await t.call('PATCH', `${BASE}/acme`, { token: writer.token, body: { accountLinking: 'auto' } });
    expect(bad.status).toBe(400);
    expect((await t.call('PATCH', `${BASE}/acme`, { token: writer.token, body: {} })).body.error).toBe('no_changes');
    expect((await t.call('PATCH', `${BASE}/missing`, { token: writer.token, body: { name: 'x' } })).status).toBe(404);
  });

  it('deletes a provider', async () => {
    const { t, writer, reader } = await setup();
    const res = await t.call('DELETE', `${BASE}/acme`, { token: writer.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, id: 'acme' });
    expect((await t.call('GET', BASE, { token: reader.token })).body.providers).toEqual([]);
    expect((await t.call('POST', '/oauth/acme/start', { body: {} })).status).toBe(404);
    expect((await t.call('DELETE', `${BASE}/acme`, { token: writer.token })).status).toBe(404);
  });
});
