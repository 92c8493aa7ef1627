/**
 * parseEnv reports every problem in one ConfigError, one line per variable, in
 * a stable order (the order of its checks). Pinned when parseEnv was split into
 * one reader per group: the same environment gives the same
 * lines, in the same order, as the single function did.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { parseEnv } from '../../../src/config/env.js';

const short = 'too-short';

function issuesOf(env: Record<string, string>): string[] {
  try {
    parseEnv(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.issues.map((i) => i.message);
  }
  throw new Error('parseEnv accepted the environment');
}

describe('parseEnv: every problem at once, in a stable order', () => {
  it('production: each variable wrong gives one line each, secrets first', () => {
    const lines = issuesOf({
      NODE_ENV: 'production',
      GENERATE_DEV_SECRETS: 'maybe',
      REFRESH_TOKEN_LOOKUP_SECRET: short,
      COOKIE_SIGNING_KEY: short,
      ISSUER: 'http://auth.example.com',
      SVC_JWKS_ACTIVE_KID: 'bad kid!',
      DISABLE_AUTH_RATE_LIMITS: 'true',
      RATE_LIMIT_STORE: 'redis',
      RATE_LIMIT_IPV6_PREFIX: '16',
      REFRESH_TOKEN_BCRYPT_COST: '20',
      REQUEST_DEADLINE_MS: '5',
      DB_TIMEOUT_MS: 'soon',
      OPENAPI_ENABLED: 'yes',
      DATABASE_URL: 'postgres://x',
      APP_ORIGINS: 'not a url',
      TRUST_PROXY: 'all',
      DELIVERY_MODE: 'console',
      OAUTH_CLIENT_SECRET_ENVS: 'lower-case',
    });
    expect(lines.map((l) => l.slice(0, l.indexOf(':')))).toEqual([
      'API_SERVICE_TOKEN',
      'GENERATE_DEV_SECRETS',
      'OAUTH_STATE_SECRET',
      'COOKIE_SIGNING_KEY',
      'REFRESH_TOKEN_LOOKUP_SECRET',
      'ISSUER',
      'SVC_JWKS_PUBLIC_KEYS',
      'SVC_JWKS_ACTIVE_KID',
      'DISABLE_AUTH_RATE_LIMITS',
      'RATE_LIMIT_STORE',
      'RATE_LIMIT_IPV6_PREFIX',
      'REFRESH_TOKEN_BCRYPT_COST',
      'REQUEST_DEADLINE_MS',
      'DB_TIMEOUT_MS',
      'OPENAPI_ENABLED',
      'DATABASE_URL',
      'APP_ORIGINS',
      'TRUST_PROXY',
      'DELIVERY_MODE',
      'OAUTH_CLIENT_SECRET_ENVS',
    ]);
    expect(lines.join('\n')).not.toContain(short);
  });

  it('development: the same environment parses to the same values', () => {
    const env = {
      ISSUER: 'http://localhost:8787/',
      API_SERVICE_TOKEN: 'x'.repeat(40),
      APP_ORIGINS: 'http://localhost:3000/app, https://app.example.com',
      OWNER_EMAIL: 'Ada@Example.com',
      RATE_LIMIT_STORE: 'memory',
      RATE_LIMIT_IPV6_PREFIX: '56',
      TRUST_PROXY: 'xff:2',
      LOGIN_RESPONSE_FLOOR_MS: '10.7',
      REQUEST_DEADLINE_MS: '0',
    };
    const { raw, secrets, ...rest } = parseEnv(env);
    expect(raw).toBe(env);
    expect(secrets?.serviceToken).toBe(env.API_SERVICE_TOKEN);
    expect(rest).toEqual({
      issuer: 'http://localhost:8787',
      production: false,
      databaseUrl: 'file:./.data/svc.db',
      databaseAuthToken: undefined,
      appId: null,
      appOrigins: ['http://localhost:3000', 'https://app.example.com'],
      trustProxy: { mode: 'xff', hops: 2 },
      clientPlaceHeaders: [],
      loginResponseFloorMs: 10,
      rateLimitStore: 'memory',
      rateLimitIpv6PrefixBits: 56,
      disableRateLimits: false,
      ownerEmails: ['ada@example.com'],
      refreshTokenBcryptCost: 4,
      requestDeadlineMs: 0,
      dbTimeoutMs: 5000,
      openapiEnabled: true,
      delivery: { mode: 'console', webhookUrl: null, webhookSecret: null },
      oauthClientSecretEnvs: [],
      generateDevSecrets: false,
      productionKeys: null,
      warnings: [],
      webhookTimeoutMs: 10000,
    });
  });
});
