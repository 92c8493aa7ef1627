import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../src/clock.js';
import { wrapClient } from '../../../src/db/client.js';
import { authEvents, systemConfig } from '../../../src/db/schema.js';
import { ConfigError, createAuthApi } from '../../../src/index.js';
import { createLogger } from '../../../src/log.js';
import { CONFIG_CACHE_TTL_MS } from '../../../src/services/config/system-config.js';
import { baseEnv, makeApi, prepareClient } from '../../helpers/make-app.js';

const quiet = createLogger(() => {});
/** Production needs its secrets and keys (parsed, not loaded: bootstrap fails before the keys are read). */
const productionEnv = {
  ...baseEnv,
  NODE_ENV: 'production',
  ISSUER: 'https://auth.example.com',
  OAUTH_STATE_SECRET: 'o'.repeat(40),
  SVC_JWKS_ACTIVE_KID: 'k1',
  SVC_JWKS_KEY_k1_PRIVATE: 'not read before bootstrap',
  SVC_JWKS_PUBLIC_KEYS: '{}',
};

/** Boots an API on a fresh in-memory database and returns its system config. */
async function configWith(env: Record<string, string | undefined>) {
  const t = await makeApi({ env });
  return t.api.deps.config.get();
}

/** Expects startup to fail with a ConfigError whose key and message name `name`. */
async function expectStartupFailure(
  env: Record<string, string | undefined>,
  name: string,
  client?: Awaited<ReturnType<typeof prepareClient>>,
) {
  const err = await createAuthApi({
    env: { ...baseEnv, ...env },
    client: client ?? (await prepareClient()),
    logger: quiet,
  }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  expect((err as ConfigError).key).toBe(name);
  expect((err as ConfigError).message).toContain(name);
  expect((err as ConfigError).message).not.toContain('\n');
  return err as ConfigError;
}

describe('system config bootstrap (contract §6.3)', () => {
  it('uses an existing row over the env seed: env never overwrites a row', async () => {
    const client = await prepareClient();
    const first = await createAuthApi({
      env: { ...baseEnv, APP_NAME: 'First', LOGIN_METHODS: 'passkey' },
      client,
      logger: quiet,
    });
    expect((await first.deps.config.get()).app_name).toBe('First');
    const second = await createAuthApi({
      env: { ...baseEnv, APP_NAME: 'Second', LOGIN_METHODS: 'email_otp,oauth' },
      client,
      logger: quiet,
    });
    const cfg = await second.deps.config.get();
    expect(cfg.app_name).toBe('First');
    expect(cfg.login_methods).toEqual(['passkey']);
    const rows = await wrapClient(client, 'file')
      .db.select()
      .from(systemConfig)
      .where(eq(systemConfig.key, 'app_name'));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.updatedBy).toBeNull();
  });

  it('ignores even an invalid env seed once the row exists', async () => {
    const client = await prepareClient();
    await createAuthApi({ env: baseEnv, client, logger: quiet });
    const again = await createAuthApi({ env: { ...baseEnv, RATE_LIMIT: 'lots' }, client, logger: quiet });
    expect((await again.deps.config.get()).rate_limit).toBe(100000);
  });

  it('uses the env seed when there is no row, and the built-in default when there is no seed', async () => {
    const cfg = await configWith({
      LOGIN_METHODS: undefined,
      SESSION_IDLE_TTL: undefined,
      PASSKEY_LOGIN_FALLBACK_ENABLED: undefined,
      SESSION_ABSOLUTE_TTL: '2d',
    });
    expect(cfg.login_methods).toEqual(['passkey', 'magic_link']);
    expect(cfg.session_idle_ttl).toBe('1d');
    expect(cfg.session_absolute_ttl).toBe('2d');
    expect(cfg.passkey_login_fallback_enabled).toBe(true);
    expect(cfg.oauth_providers).toEqual([]);
    expect(cfg.lockout_policy).toEqual({ enabled: true, maxFailures: 10, windowSeconds: 900, lockoutSeconds: 900 });
  });

  it('treats an empty env value as unset', async () => {
    const cfg = await configWith({ LOGIN_METHODS: '  ' });
    expect(cfg.login_methods).toEqual(['passkey', 'magic_link']);
  });

  it('gives the non-secret seeds built-in defaults, and rpid/origins from ISSUER outside production', async () => {
    const unset = [
      'APP_NAME',
      'DEFAULT_ROLES',
      'AVAILABLE_ROLES',
      'ACCESS_TOKEN_TTL',
      'REFRESH_TOKEN_TTL',
      'RATE_LIMIT',
      'DELAY_AFTER',
      'RPID',
      'ORIGINS',
    ];
    const cfg = await configWith({
      ...Object.fromEntries(unset.map((k) => [k, undefined])),
      ISSUER: 'http://auth.localhost:8787',
    });
    expect(cfg).toMatchObject({
      app_name: 'svc',
      default_roles: ['user'],
      available_roles: ['user', 'admin', 'admin:read', 'admin:write'],
      access_token_ttl: '15m',
      refresh_token_ttl: '1d',
      rate_limit: 100,
      delay_after: 50,
      rpid: 'auth.localhost',
      origins: ['http://auth.localhost:8787'],
    });
  });

  it('in production, fails startup naming every key without a row, seed or default (rpid, origins), one line each, and records the event', async () => {
    const client = await prepareClient();
    const err = await createAuthApi({
      env: { ...productionEnv, RPID: undefined, ORIGINS: undefined },
      client,
      logger: quiet,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues.map((i) => i.key)).toEqual(['rpid', 'origins']);
    expect((err as ConfigError).message.split('\n')).toEqual([
      'rpid: is missing: set RPID (no row, no env seed and no built-in default)',
      'origins: is missing: set ORIGINS (no row, no env seed and no built-in default)',
    ]);
    const events = await wrapClient(client, 'file')
      .db.select()
      .from(authEvents)
      .where(eq(authEvents.type, 'system_config_error'));
    expect(events).toHaveLength(1);
    expect(events[0]!.metadata).toEqual({ key: 'rpid', phase: 'boot' });
  });

  it('reports a bad env variable and a bad config seed of the same start together', async () => {
    const env = { ...baseEnv, ISSUER: 'nope', RATE_LIMIT: 'lots', TRUST_PROXY: 'all' };
    const err = await createAuthApi({ env, client: await prepareClient(), logger: quiet }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues.map((i) => i.key)).toEqual(['ISSUER', 'TRUST_PROXY', 'RATE_LIMIT']);
  });

  it('fails startup on an invalid stored row, naming the key', async () => {
    const client = await prepareClient();
    await createAuthApi({ env: baseEnv, client, logger: quiet });
    await wrapClient(client, 'file')
      .db.update(systemConfig)
      .set({ value: 'soon' })
      .where(eq(systemConfig.key, 'access_token_ttl'));
    await expectStartupFailure({}, 'access_token_ttl', client);
  });

  it('fails startup when default_roles is not a subset of available_roles', async () => {
    await expectStartupFailure({ DEFAULT_ROLES: 'user,owner' }, 'default_roles');
  });
});

describe('system config env parsing (contract §6.2)', () => {
  it('parses lists: comma-separated, items trimmed, empty items dropped', async () => {
    const cfg = await configWith({
      DEFAULT_ROLES: ' user , ,admin ,',
      AVAILABLE_ROLES: 'user,admin',
      LOGIN_METHODS: 'email_otp, phone_otp',
    });
    expect(cfg.default_roles).toEqual(['user', 'admin']);
    expect(cfg.available_roles).toEqual(['user', 'admin']);
    expect(cfg.login_methods).toEqual(['email_otp', 'phone_otp']);
  });

  it('parses ORIGINS as a list of http(s) origins (trailing slash stripped) and android key hashes', async () => {
    const cfg = await configWith({
      ORIGINS: 'https://app.test/, android:apk-key-hash:abc_-DEF, http://localhost:3000',
    });
    expect(cfg.origins).toEqual(['https://app.test', 'android:apk-key-hash:abc_-DEF', 'http://localhost:3000']);
  });

  it('parses OAUTH_PROVIDERS as a JSON array', async () => {
    const cfg = await configWith({ OAUTH_PROVIDERS: '[{"id":"github","name":"GitHub"}]' });
    expect(cfg.oauth_providers).toEqual([{ id: 'github', name: 'GitHub' }]);
  });

  it('merges LOCKOUT_POLICY over the default policy', async () => {
    const cfg = await configWith({ LOCKOUT_POLICY: '{"maxFailures":3,"lockoutSeconds":60}' });
    expect(cfg.lockout_policy).toEqual({ enabled: true, maxFailures: 3, windowSeconds: 900, lockoutSeconds: 60 });
    const off = await configWith({ LOCKOUT_POLICY: '{"enabled":false}' });
    expect(off.lockout_policy.enabled).toBe(false);
  });

  it('parses RATE_LIMIT and DELAY_AFTER as base-10 integers', async () => {
    const cfg = await configWith({ RATE_LIMIT: ' 42 ', DELAY_AFTER: '0' });
    expect(cfg.rate_limit).toBe(42);
    expect(cfg.delay_after).toBe(0);
  });

  it.each([
    ['true', true],
    [' true ', true],
    ['TRUE', false],
    ['1', false],
    ['yes', false],
    ['false', false],
  ])('PASSKEY_LOGIN_FALLBACK_ENABLED=%j is %s (only the exact value true)', async (raw, expected) => {
    const cfg = await configWith({ PASSKEY_LOGIN_FALLBACK_ENABLED: raw });
    expect(cfg.passkey_login_fallback_enabled).toBe(expected);
  });

  it('parses durations and trims strings', async () => {
    const cfg = await configWith({
      ACCESS_TOKEN_TTL: '30m',
      REFRESH_TOKEN_TTL: '7d',
      SESSION_IDLE_TTL: '3600s',
      APP_NAME: '  My App  ',
      RPID: ' example.com ',
    });
    expect(cfg.access_token_ttl).toBe('30m');
    expect(cfg.refresh_token_ttl).toBe('7d');
    expect(cfg.session_idle_ttl).toBe('3600s');
    expect(cfg.app_name).toBe('My App');
    expect(cfg.rpid).toBe('example.com');
  });

  it.each([
    ['DEFAULT_ROLES', 'bad role!'],
    ['AVAILABLE_ROLES', 'user,user'],
    ['LOGIN_METHODS', 'password'],
    ['ORIGINS', 'https://app.test/path'],
    ['ORIGINS', 'android:apk-key-hash:x,https://app.test'],
    ['OAUTH_PROVIDERS', '[{"id":"a"'],
    ['OAUTH_PROVIDERS', '{"id":"a"}'],
    ['OAUTH_PROVIDERS', '[{"id":"a"},{"id":"a"}]'],
    ['LOCKOUT_POLICY', '[1,2]'],
    ['LOCKOUT_POLICY', '{"maxFailures":0}'],
    ['LOCKOUT_POLICY', '{"enabled":"yes"}'],
    ['LOCKOUT_POLICY', 'not json'],
    ['RATE_LIMIT', '4.5'],
    ['RATE_LIMIT', '1e3'],
    ['RATE_LIMIT', '0x10'],
    ['RATE_LIMIT', '0'],
    ['DELAY_AFTER', '-1'],
    ['ACCESS_TOKEN_TTL', '15'],
    ['ACCESS_TOKEN_TTL', '1w'],
    ['ACCESS_TOKEN_TTL', '30s'],
    ['REFRESH_TOKEN_TTL', '400d'],
    ['SESSION_IDLE_TTL', '1m'],
    ['SESSION_ABSOLUTE_TTL', '-1d'],
    ['RPID', 'https://example.com'],
    ['APP_NAME', 'x'.repeat(81)],
  ])('a present but invalid %s=%j fails startup naming the variable', async (name, raw) => {
    await expectStartupFailure({ [name]: raw }, name);
  });
});

describe('system config cache (contract §6.4)', () => {
  it('serves the cached value for 60 s, then reads the table again', async () => {
    const clock = createManualClock(Date.UTC(2026, 0, 1, 12));
    const client = await prepareClient();
    const api = await createAuthApi({ env: baseEnv, client, clock, logger: quiet });
    expect(CONFIG_CACHE_TTL_MS).toBe(60_000);
    expect((await api.deps.config.get()).app_name).toBe('svc test');
    await api.deps.db.update(systemConfig).set({ value: 'Renamed' }).where(eq(systemConfig.key, 'app_name'));
    expect((await api.deps.config.get()).app_name).toBe('svc test');
    clock.advance(59_999);
    expect((await api.deps.config.get()).app_name).toBe('svc test');
    clock.advance(1);
    expect((await api.deps.config.get()).app_name).toBe('Renamed');
  });

  it('invalidate() makes the next read see the table at once', async () => {
    const t = await makeApi();
    expect((await t.api.deps.config.get()).rate_limit).toBe(100000);
    await t.api.deps.db.update(systemConfig).set({ value: 7 }).where(eq(systemConfig.key, 'rate_limit'));
    expect((await t.api.deps.config.get()).rate_limit).toBe(100000);
    t.api.deps.config.invalidate();
    expect((await t.api.deps.config.get()).rate_limit).toBe(7);
  });

  it('invalidate() also discards a read that was already in flight', async () => {
    // A client whose system_config reads answer only when the gate opens: the
    // in-flight read has seen the old row before the write and invalidate().
    const real = await prepareClient();
    let gate: Promise<void> | null = null;
    let open = () => {};
    const client = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop !== 'execute') return Reflect.get(target, prop, receiver);
        return async (stmt: string | { sql: string }) => {
          const rs = await target.execute(stmt as string);
          const sqlText = typeof stmt === 'string' ? stmt : stmt.sql;
          if (gate && /from "system_config"/i.test(sqlText)) await gate;
          return rs;
        };
      },
    });
    const api = await createAuthApi({ env: baseEnv, client, logger: quiet });
    api.deps.config.invalidate(); // whatever boot cached: the next get() must read the table
    gate = new Promise<void>((r) => (open = r));
    const inFlight = api.deps.config.get();
    await new Promise((r) => setTimeout(r, 20));
    await real.execute({
      sql: 'UPDATE system_config SET value = ? WHERE key = ?',
      args: [JSON.stringify('Renamed'), 'app_name'],
    });
    api.deps.config.invalidate();
    const fresh = api.deps.config.get();
    gate = null;
    open();
    expect((await inFlight).app_name).toBe('svc test');
    expect((await fresh).app_name).toBe('Renamed');
    expect((await api.deps.config.get()).app_name).toBe('Renamed');
  });

  it('validates every value it serves: a row broken after boot fails the read', async () => {
    const t = await makeApi();
    await t.api.deps.db.update(systemConfig).set({ value: -5 }).where(eq(systemConfig.key, 'rate_limit'));
    t.api.deps.config.invalidate();
    await expect(t.api.deps.config.get()).rejects.toThrow(/rate_limit/);
  });
});
