import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents } from '../../../src/db/schema.js';
import { makeApi } from '../../helpers/make-app.js';
import { staticProvider } from '../../helpers/oauth.js';

const provider = staticProvider;

const apiWith = (providers: unknown[], loginMethods = 'passkey,oauth') =>
  makeApi({
    env: {
      LOGIN_METHODS: loginMethods,
      OAUTH_PROVIDERS: JSON.stringify(providers),
      ACME_CLIENT_SECRET: 'provider-secret-value-123',
    },
  });

describe('GET /oauth/providers', () => {
  it('lists enabled, valid providers with public fields only', async () => {
    const t = await apiWith([
      provider(),
      provider({ id: 'off', name: 'Off', enabled: false }),
      provider({ id: 'min', name: 'Min', scopes: undefined }),
    ]);
    const res = await t.call('GET', '/oauth/providers');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      providers: [
        { id: 'acme', name: 'Acme', scopes: ['openid', 'email'] },
        { id: 'min', name: 'Min', scopes: [] },
      ],
    });
    expect(JSON.stringify(res.body)).not.toMatch(/client|secret|idp\.example/i);
  });

  it('hides every provider, and start answers 404, when oauth is not a login method', async () => {
    const t = await apiWith([provider()], 'passkey,magic_link');
    expect((await t.call('GET', '/oauth/providers')).body).toEqual({ providers: [] });
    const start = await t.call('POST', '/oauth/acme/start', { body: {} });
    expect(start.status).toBe(404);
    expect(start.body).toEqual({ error: 'oauth_provider_not_found', message: 'OAuth provider not found' });
  });

  it('refuses to start a disabled provider', async () => {
    const t = await apiWith([provider({ enabled: false })]);
    expect((await t.call('POST', '/oauth/acme/start', { body: {} })).status).toBe(404);
  });

  it('hides an invalid provider (not fatal) and reports it once per config version as system_config_error', async () => {
    const t = await apiWith([
      provider(),
      provider({ id: 'bad', tokenUrl: 'ftp://idp.example/token' }),
      provider({ id: 'typo', allowSignUp: false }),
      provider({ id: 'leaky', clientSecretEnv: 'lowercase-is-not-an-env-name' }),
    ]);
    for (let i = 0; i < 3; i++) {
      const res = await t.call('GET', '/oauth/providers');
      expect(res.body.providers.map((p: { id: string }) => p.id)).toEqual(['acme']);
    }
    expect((await t.call('POST', '/oauth/bad/start', { body: {} })).status).toBe(404);
    const errors = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'system_config_error'));
    expect(errors.map((e) => (e.metadata as { providerId: string }).providerId).sort()).toEqual([
      'bad',
      'leaky',
      'typo',
    ]);
    expect(JSON.stringify(errors)).not.toContain('lowercase-is-not-an-env-name');
  });

  it('refuses http provider URLs in production', async () => {
    const { oauthProviderSchema } = await import('../../../src/config/oauth-provider.js');
    const http = provider({ tokenUrl: 'http://idp.example/token' });
    expect(oauthProviderSchema(false).safeParse(http).success).toBe(true);
    expect(oauthProviderSchema(true).safeParse(http).success).toBe(false);
    expect(oauthProviderSchema(true).safeParse(provider()).success).toBe(true);
  });
});

describe('boot', () => {
  it('reports an invalid provider at boot without failing startup', async () => {
    const t = await apiWith([provider({ id: 'bad', userInfoUrl: 'not a url' })]);
    const errors = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'system_config_error'));
    expect(errors).toHaveLength(1);
    expect(errors[0]!.metadata).toMatchObject({
      key: 'oauth_providers',
      providerId: 'bad',
      reason: 'invalid_provider',
    });
    expect(t.logs.some((l) => l.level === 'warn' && l.line.includes('OAuth provider config is invalid'))).toBe(true);
  });
});

describe('OAuth per-flow limiter (contract §3.19)', () => {
  it('allows 10 starts per provider and IP in 15 minutes, then 429 with Retry-After', async () => {
    const t = await apiWith([provider(), provider({ id: 'acme2', name: 'Acme 2' })]);
    for (let i = 0; i < 10; i++) expect((await t.call('POST', '/oauth/acme/start', { body: {} })).status).toBe(200);
    const limited = await t.call('POST', '/oauth/acme/start', { body: {} });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('rate_limited');
    expect(limited.headers.get('retry-after')).toBeTruthy();
    // The callback shares the provider+IP counter; another provider has its own.
    expect((await t.call('POST', '/oauth/acme/callback', { body: { code: 'c', state: 's.s' } })).status).toBe(429);
    expect((await t.call('POST', '/oauth/acme2/start', { body: {} })).status).toBe(200);
    const { rateLimitCounters } = await import('../../../src/db/schema.js');
    const keys = (await t.api.deps.db.select().from(rateLimitCounters)).map((r) => r.key);
    expect(keys.some((k) => /^oauth:provider:acme:/.test(k))).toBe(true);
    expect(keys.some((k) => /^oauth:ip:/.test(k))).toBe(true);
    t.clock.advance(15 * 60_000);
    expect((await t.call('POST', '/oauth/acme/start', { body: {} })).status).toBe(200);
  });
});
