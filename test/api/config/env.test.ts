import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { DEFAULT_BCRYPT_COST, parseEnv, type EnvRecord } from '../../../src/config/env.js';
import { configSchemas } from '../../../src/config/keys.js';
import { createAuthApi } from '../../../src/index.js';
import { createLogger } from '../../../src/log.js';
import { baseEnv, prepareClient } from '../../helpers/make-app.js';

const SECRET = 'x'.repeat(32);

function failsOn(env: EnvRecord, name: string): ConfigError {
  let caught: unknown;
  try {
    parseEnv(env);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  const err = caught as ConfigError;
  expect(err.key).toBe(name);
  expect(err.message.startsWith(`${name}: `)).toBe(true);
  return err;
}

const production = (over: EnvRecord = {}): EnvRecord => ({
  NODE_ENV: 'production',
  ISSUER: 'https://auth.example.com',
  API_SERVICE_TOKEN: SECRET,
  OAUTH_STATE_SECRET: 'y'.repeat(32),
  SVC_JWKS_ACTIVE_KID: 'k1',
  SVC_JWKS_KEY_k1_PRIVATE: '-----BEGIN PRIVATE KEY-----\\nAAAA\\n-----END PRIVATE KEY-----',
  SVC_JWKS_PUBLIC_KEYS: '{"keys":[]}',
  ...over,
});

describe('parseEnv: ISSUER', () => {
  it('is required', () => {
    failsOn({}, 'ISSUER');
    failsOn({ ISSUER: '  ' }, 'ISSUER');
  });
  it.each(['auth.example.com', 'ftp://auth.example.com', 'http://', 'http://a.test//'])('refuses %j', (issuer) => {
    failsOn({ ISSUER: issuer }, 'ISSUER');
  });
  it('strips one trailing slash', () => {
    expect(parseEnv({ ISSUER: 'http://auth.test/' }).issuer).toBe('http://auth.test');
    expect(parseEnv({ ISSUER: 'https://x.test/auth' }).issuer).toBe('https://x.test/auth');
  });
  it('must use https in production', () => {
    failsOn(production({ ISSUER: 'http://auth.example.com' }), 'ISSUER');
  });
  it('makes createAuthApi reject before touching the database', async () => {
    const err = await createAuthApi({
      env: { ...baseEnv, ISSUER: undefined },
      client: await prepareClient(),
      logger: createLogger(() => {}),
    }).catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.key).toBe('ISSUER');
  });
});

describe('parseEnv: secrets (contract §1.1)', () => {
  it.each([
    'API_SERVICE_TOKEN',
    'REFRESH_TOKEN_LOOKUP_SECRET',
    'TOTP_SECRET_ENCRYPTION_KEY',
    'OAUTH_STATE_SECRET',
    'DECOY_SUBJECT_SECRET',
  ])('refuses %s shorter than 32 characters', (name) => {
    const err = failsOn({ ISSUER: 'http://a.test', API_SERVICE_TOKEN: SECRET, [name]: 'x'.repeat(31) }, name);
    expect(err.message).not.toContain('x'.repeat(31));
  });

  it('refuses COOKIE_SIGNING_KEY, which nothing would use, naming the adapter option that signs cookies', () => {
    // The API is bearer-only: the cookies are the adapter's, signed with its `cookieSecret`.
    for (const env of [{ ISSUER: 'http://a.test', API_SERVICE_TOKEN: SECRET }, production()]) {
      const err = failsOn({ ...env, COOKIE_SIGNING_KEY: 'k'.repeat(40) }, 'COOKIE_SIGNING_KEY');
      expect(err.message).toContain('cookieSecret');
      expect(err.message).not.toContain('k'.repeat(40));
      expect(err.message.split('\n')).toHaveLength(1);
    }
    // Unset or empty (the `.env.example` line) is fine.
    expect(() =>
      parseEnv({ ISSUER: 'http://a.test', API_SERVICE_TOKEN: SECRET, COOKIE_SIGNING_KEY: '' }),
    ).not.toThrow();
  });

  it('leaves the secrets to the boot outside production when API_SERVICE_TOKEN is unset (no constant fallback)', () => {
    const env = parseEnv({ ISSUER: 'http://a.test' });
    expect(env.secrets).toBeNull();
    expect(env.warnings.join()).toContain('API_SERVICE_TOKEN');
  });

  it('uses each dedicated secret when set, API_SERVICE_TOKEN otherwise', () => {
    const env = parseEnv({
      ISSUER: 'http://a.test',
      API_SERVICE_TOKEN: SECRET,
      REFRESH_TOKEN_LOOKUP_SECRET: 'r'.repeat(40),
    });
    if (!env.secrets) throw new Error('secrets expected');
    expect(env.secrets.refreshLookup).toBe('r'.repeat(40));
    expect(env.secrets.decoySubject).toBe(SECRET);
    expect(env.secrets.oauthState).toBe(SECRET);
  });

  it('requires API_SERVICE_TOKEN and OAUTH_STATE_SECRET in production', () => {
    failsOn(production({ API_SERVICE_TOKEN: undefined }), 'API_SERVICE_TOKEN');
    failsOn(production({ OAUTH_STATE_SECRET: undefined }), 'OAUTH_STATE_SECRET');
  });
});

describe('parseEnv: production keys (contract §1.6)', () => {
  it('requires the active kid, its private key and the published keys', () => {
    failsOn(production({ SVC_JWKS_ACTIVE_KID: undefined }), 'SVC_JWKS_ACTIVE_KID');
    failsOn(production({ SVC_JWKS_ACTIVE_KID: 'bad-kid' }), 'SVC_JWKS_ACTIVE_KID');
    failsOn(production({ SVC_JWKS_ACTIVE_KID: 'k2' }), 'SVC_JWKS_KEY_k2_PRIVATE');
    failsOn(production({ SVC_JWKS_PUBLIC_KEYS: undefined }), 'SVC_JWKS_PUBLIC_KEYS');
  });

  it('accepts literal \\n in the private PEM', () => {
    expect(parseEnv(production()).productionKeys?.privatePem).toContain('\nAAAA\n');
  });

  it('never reads env keys outside production', () => {
    expect(parseEnv({ ISSUER: 'http://a.test', SVC_JWKS_ACTIVE_KID: 'bad-kid' }).productionKeys).toBeNull();
  });
});

describe('parseEnv: other variables (contract §0.6)', () => {
  it('refuses DISABLE_AUTH_RATE_LIMITS=true in production and honours it elsewhere', () => {
    failsOn(production({ DISABLE_AUTH_RATE_LIMITS: 'true' }), 'DISABLE_AUTH_RATE_LIMITS');
    expect(parseEnv({ ISSUER: 'http://a.test', DISABLE_AUTH_RATE_LIMITS: 'true' }).disableRateLimits).toBe(true);
    expect(parseEnv({ ISSUER: 'http://a.test', DISABLE_AUTH_RATE_LIMITS: '1' }).disableRateLimits).toBe(false);
    expect(parseEnv(production({ DISABLE_AUTH_RATE_LIMITS: 'false' })).disableRateLimits).toBe(false);
  });

  it.each([
    ['REFRESH_TOKEN_BCRYPT_COST', '3'],
    ['REFRESH_TOKEN_BCRYPT_COST', '16'],
    ['REFRESH_TOKEN_BCRYPT_COST', 'ten'],
    ['RATE_LIMIT_STORE', 'redis'],
    ['RATE_LIMIT_IPV6_PREFIX', '31'],
    ['RATE_LIMIT_IPV6_PREFIX', '129'],
    ['RATE_LIMIT_IPV6_PREFIX', '64.5'],
    ['RATE_LIMIT_IPV6_PREFIX', '0x40'],
    ['RATE_LIMIT_IPV6_PREFIX', '/64'],
    ['TRUST_PROXY', 'xff:0'],
    ['TRUST_PROXY', 'yes'],
    ['DATABASE_URL', 'postgres://db'],
    ['APP_ORIGINS', 'https://ok.test,not a url'],
  ])('refuses %s=%j', (name, value) => {
    failsOn({ ISSUER: 'http://a.test', [name]: value }, name);
  });

  it('applies defaults', () => {
    const env = parseEnv({ ISSUER: 'http://a.test' });
    expect(env).toMatchObject({
      production: false,
      databaseUrl: 'file:./.data/svc.db',
      rateLimitStore: 'database',
      rateLimitIpv6PrefixBits: 64,
      disableRateLimits: false,
      refreshTokenBcryptCost: DEFAULT_BCRYPT_COST,
      loginResponseFloorMs: 250,
      trustProxy: { mode: 'connection' },
      appOrigins: [],
      appId: null,
    });
  });

  it('parses RATE_LIMIT_IPV6_PREFIX from 32 to 128', () => {
    expect(parseEnv({ ISSUER: 'http://a.test', RATE_LIMIT_IPV6_PREFIX: '48' }).rateLimitIpv6PrefixBits).toBe(48);
    expect(parseEnv({ ISSUER: 'http://a.test', RATE_LIMIT_IPV6_PREFIX: ' 128 ' }).rateLimitIpv6PrefixBits).toBe(128);
    expect(parseEnv({ ISSUER: 'http://a.test', RATE_LIMIT_IPV6_PREFIX: '32' }).rateLimitIpv6PrefixBits).toBe(32);
  });

  it('parses lists, TRUST_PROXY and the login floor', () => {
    const env = parseEnv({
      ISSUER: 'http://a.test',
      APP_ORIGINS: 'https://app.test/, http://localhost:5173',
      OWNER_EMAIL: ' Boss@Example.com ,',
      TRUST_PROXY: 'xff:2',
      LOGIN_RESPONSE_FLOOR_MS: '0',
      REFRESH_TOKEN_BCRYPT_COST: '10',
    });
    expect(env.appOrigins).toEqual(['https://app.test', 'http://localhost:5173']);
    expect(env.ownerEmails).toEqual(['boss@example.com']);
    expect(env.trustProxy).toEqual({ mode: 'xff', hops: 2 });
    expect(env.loginResponseFloorMs).toBe(0);
    expect(env.refreshTokenBcryptCost).toBe(10);
  });

  it.each(['abc', '-5', ''])('LOGIN_RESPONSE_FLOOR_MS=%j falls back to 250', (raw) => {
    expect(parseEnv({ ISSUER: 'http://a.test', LOGIN_RESPONSE_FLOOR_MS: raw }).loginResponseFloorMs).toBe(250);
  });
});

describe('config duration schema', () => {
  it('reports a malformed duration as a validation issue instead of throwing', () => {
    const r = configSchemas.access_token_ttl.safeParse('soon');
    expect(r.success).toBe(false);
  });
});
