/**
 * A provider's `clientSecretEnv` may name only a variable
 * meant for it (`*_CLIENT_SECRET`, or listed in `OAUTH_CLIENT_SECRET_ENVS`),
 * never one the service reads for itself. Otherwise an `admin:write` user
 * points `tokenUrl` at their own server, names `API_SERVICE_TOKEN`, and the
 * token exchange posts `client_secret=<the service token>` there.
 *
 * Refused on create, on PATCH, on `PATCH /system-config/admin`, at boot (the
 * provider is hidden) and at use: the token endpoint below, a real HTTP server
 * the test controls, must never receive a request carrying a service secret.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clientSecretEnvProblem, isServiceEnvName } from '../../../src/config/oauth-secret-env.js';
import { oauthProviderSchema } from '../../../src/config/oauth-provider.js';
import { authEvents } from '../../../src/db/schema.js';
import { completeOAuthLogin } from '../../../src/services/oauth/login.js';
import { writeConfigKeys } from '../../../src/services/config/system-config.js';
import { signedIn } from '../../helpers/admin.js';
import { readNames } from '../../helpers/env-names.js';
import { makeApi, TEST_SERVICE_TOKEN } from '../../helpers/make-app.js';

const STATE_SECRET = 'oauth-state-secret-for-tests-0123456789abcdef';
const LOOKUP_SECRET = 'refresh-lookup-secret-for-tests-0123456789abcdef';
const DB_TOKEN = 'database-auth-token-for-tests-0123456789abcdef';
const JWKS_PRIVATE = 'svc-jwks-private-key-for-tests-0123456789abcdef';
const PROVIDER_SECRET = 'the-provider-client-secret-0123456789';
/** Every value that must never leave the API. */
const SERVICE_VALUES = [TEST_SERVICE_TOKEN, STATE_SECRET, LOOKUP_SECRET, DB_TOKEN, JWKS_PRIVATE];

/** The attacker's token endpoint: records every request body it gets. */
let server: Server;
let endpoint: string;
const received: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)} ${body}`);
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  received.length = 0;
});

const provider = (over: Record<string, unknown> = {}) => ({
  id: 'evil',
  name: 'Evil',
  clientId: 'client-1',
  clientSecretEnv: 'EVIL_CLIENT_SECRET',
  authorizationUrl: `${endpoint}/authorize`,
  tokenUrl: `${endpoint}/token`,
  userInfoUrl: `${endpoint}/userinfo`,
  scopes: ['email'],
  redirectUris: ['http://localhost:3000/oauth/callback'],
  ...over,
});

async function setup(env: Record<string, string> = {}, providers: unknown[] = [provider()]) {
  const t = await makeApi({
    env: {
      LOGIN_METHODS: 'passkey,oauth',
      OAUTH_STATE_SECRET: STATE_SECRET,
      REFRESH_TOKEN_LOOKUP_SECRET: LOOKUP_SECRET,
      DATABASE_AUTH_TOKEN: DB_TOKEN,
      SVC_JWKS_KEY_x_PRIVATE: JWKS_PRIVATE,
      EVIL_CLIENT_SECRET: PROVIDER_SECRET,
      OAUTH_PROVIDERS: JSON.stringify(providers),
      ...env,
    },
  });
  const writer = await signedIn(t, ['admin:write', 'admin:read']);
  return { t, writer };
}

const FORBIDDEN = [
  'API_SERVICE_TOKEN',
  'SVC_JWKS_KEY_x_PRIVATE',
  'SVC_JWKS_KEY_MAIN_PRIVATE',
  'REFRESH_TOKEN_LOOKUP_SECRET',
  'DATABASE_AUTH_TOKEN',
  'OAUTH_STATE_SECRET',
  'EVIL_SECRET',
  'GITHUB_TOKEN',
];
const BASE = '/system-config/oauth-providers';

function expectRefused(res: { status: number; body: any }) {
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('invalid_request');
  const issue = res.body.details.issues.find((i: { path: unknown[] }) => i.path.at(-1) === 'clientSecretEnv');
  expect(issue?.message).toMatch(/_CLIENT_SECRET/);
  expect(issue?.message).toMatch(/OAUTH_CLIENT_SECRET_ENVS/);
  for (const v of [...SERVICE_VALUES, PROVIDER_SECRET]) expect(JSON.stringify(res.body)).not.toContain(v);
}

describe('clientSecretEnv: create and PATCH', () => {
  it.each(FORBIDDEN)('POST refuses %s with 400 invalid_request', async (name) => {
    const { t, writer } = await setup({}, []);
    const res = await t.call('POST', BASE, { token: writer.token, body: provider({ clientSecretEnv: name }) });
    expectRefused(res);
    expect((await t.call('GET', BASE, { token: writer.token })).body.providers).toEqual([]);
  });

  it.each(FORBIDDEN)('PATCH refuses %s with 400 invalid_request and keeps the stored name', async (name) => {
    const { t, writer } = await setup();
    const res = await t.call('PATCH', `${BASE}/evil`, { token: writer.token, body: { clientSecretEnv: name } });
    expectRefused(res);
    const list = await t.call('GET', BASE, { token: writer.token });
    expect(list.body.providers[0]).toMatchObject({ clientSecretEnv: 'EVIL_CLIENT_SECRET', valid: true });
  });

  it('PATCH /system-config/admin refuses a provider naming a service secret', async () => {
    const { t, writer } = await setup({}, []);
    const res = await t.call('PATCH', '/system-config/admin', {
      token: writer.token,
      body: { oauth_providers: [provider({ clientSecretEnv: 'API_SERVICE_TOKEN' })] },
    });
    expectRefused(res);
  });

  it('accepts a *_CLIENT_SECRET name', async () => {
    const { t, writer } = await setup({}, []);
    const res = await t.call('POST', BASE, {
      token: writer.token,
      body: provider({ clientSecretEnv: 'GITHUB_CLIENT_SECRET' }),
    });
    expect(res.status).toBe(201);
  });
});

describe('OAUTH_CLIENT_SECRET_ENVS (operator allowlist)', () => {
  it('permits an extra non-service name, and nothing else', async () => {
    const { t, writer } = await setup({ OAUTH_CLIENT_SECRET_ENVS: 'LEGACY_GH_SECRET, OTHER_ONE' }, []);
    expect(
      (
        await t.call('POST', BASE, {
          token: writer.token,
          body: provider({ id: 'gh', clientSecretEnv: 'LEGACY_GH_SECRET' }),
        })
      ).status,
    ).toBe(201);
    expectRefused(
      await t.call('POST', BASE, {
        token: writer.token,
        body: provider({ id: 'gh2', clientSecretEnv: 'UNLISTED_SECRET' }),
      }),
    );
  });

  it('can never permit a service name: the API refuses to start', async () => {
    for (const name of [
      'API_SERVICE_TOKEN',
      'SVC_JWKS_KEY_x_PRIVATE',
      'DATABASE_AUTH_TOKEN',
      'REFRESH_TOKEN_LOOKUP_SECRET',
    ]) {
      await expect(setup({ OAUTH_CLIENT_SECRET_ENVS: `OK_ONE,${name}` }, [])).rejects.toThrow(
        /OAUTH_CLIENT_SECRET_ENVS/,
      );
    }
    // Even handed straight to the rule, the allowlist does not override the deny list.
    expect(clientSecretEnvProblem('API_SERVICE_TOKEN', ['API_SERVICE_TOKEN'])).not.toBeNull();
    expect(
      oauthProviderSchema(false, ['API_SERVICE_TOKEN']).safeParse(provider({ clientSecretEnv: 'API_SERVICE_TOKEN' }))
        .success,
    ).toBe(false);
  });
});

describe('clientSecretEnv at boot and at use: nothing is ever sent', () => {
  it('a seeded provider naming a service secret is hidden (invalid) and never contacts its token endpoint', async () => {
    const { t, writer } = await setup({}, [provider({ clientSecretEnv: 'API_SERVICE_TOKEN' })]);
    const list = await t.call('GET', BASE, { token: writer.token });
    expect(list.body.providers[0]).toMatchObject({ id: 'evil', valid: false, secretConfigured: false });
    expect(list.body.providers[0].issues.map((i: { path: unknown[] }) => i.path)).toContainEqual(['clientSecretEnv']);
    expect((await t.call('GET', '/oauth/providers')).body.providers).toEqual([]);
    const start = await t.call('POST', '/oauth/evil/start', { body: {} });
    expect(start.status).toBe(404);
    const callback = await t.call('POST', '/oauth/evil/callback', { body: { code: 'c', state: 's' } });
    expect(callback.status).toBe(404);
    expect(received).toEqual([]);
  });

  it.each(['API_SERVICE_TOKEN', 'SVC_JWKS_KEY_x_PRIVATE', 'DATABASE_AUTH_TOKEN'])(
    'a row rewritten in the database to %s after start: the callback fails and sends nothing',
    async (name) => {
      const { t } = await setup();
      const start = await t.call('POST', '/oauth/evil/start', {
        body: { redirectUri: 'http://localhost:3000/oauth/callback' },
      });
      expect(start.status).toBe(200);
      const state = new URL(start.body.authorizationUrl).searchParams.get('state')!;
      // Bypass every validation: the stored row now names a service secret.
      await writeConfigKeys(
        t.api.deps.db,
        { oauth_providers: [provider({ clientSecretEnv: name })] },
        null,
        t.api.deps.clock,
      );
      t.api.deps.config.invalidate();
      const callback = await t.call('POST', '/oauth/evil/callback', {
        body: { code: 'the-code', state, binding: start.body.binding },
      });
      expect([400, 404]).toContain(callback.status);
      expect(received).toEqual([]);
    },
  );

  it('the token exchange itself refuses a disallowed name handed to it (oauth_login_failed, nothing sent)', async () => {
    const { t } = await setup();
    for (const name of [
      'API_SERVICE_TOKEN',
      'SVC_JWKS_KEY_x_PRIVATE',
      'DATABASE_AUTH_TOKEN',
      'REFRESH_TOKEN_LOOKUP_SECRET',
      'UNLISTED_SECRET',
    ]) {
      const start = await t.call('POST', '/oauth/evil/start', { body: {} });
      const state = new URL(start.body.authorizationUrl).searchParams.get('state')!;
      // A provider object that never went through the schema (as a future code path might pass one).
      const forged = { ...oauthProviderSchema(false).parse(provider()), clientSecretEnv: name };
      const client = {
        ip: '127.0.0.1',
        ipKey: '127.0.0.1',
        userAgent: 'test',
        trusted: false,
        externalDelivery: false,
        startedAtMs: Date.now(),
      };
      await expect(
        completeOAuthLogin(t.api.deps, {
          provider: forged,
          code: 'the-code',
          state,
          binding: start.body.binding,
          client,
        }),
      ).rejects.toMatchObject({ code: 'oauth_login_failed' });
    }
    expect(received).toEqual([]);
    const failed = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'oauth_login_failed'));
    expect(failed.map((e) => (e.metadata as { reason: string }).reason)).toEqual(
      Array(5).fill('client_secret_env_refused'),
    );
    for (const v of SERVICE_VALUES) expect(JSON.stringify(failed) + JSON.stringify(t.logs)).not.toContain(v);
  });

  it('a compliant provider still reaches its token endpoint with its own secret (the control)', async () => {
    const { t } = await setup();
    const start = await t.call('POST', '/oauth/evil/start', { body: {} });
    const state = new URL(start.body.authorizationUrl).searchParams.get('state')!;
    const callback = await t.call('POST', '/oauth/evil/callback', {
      body: { code: 'the-code', state, binding: start.body.binding },
    });
    expect(callback.body.error).toBe('oauth_login_failed');
    expect(received).toHaveLength(1);
    expect(received[0]).toContain(`client_secret=${PROVIDER_SECRET}`);
    for (const v of SERVICE_VALUES) expect(received[0]).not.toContain(v);
  });
});

describe('the deny list covers every env name the service reads', () => {
  const root = join(import.meta.dirname, '../../..');
  const files = (dir: string): string[] =>
    readdirSync(join(root, dir)).flatMap((f) => {
      const p = join(dir, f);
      if (statSync(join(root, p)).isDirectory()) return f === 'node_modules' ? [] : files(p);
      return /\.(ts|mjs)$/.test(f) && !f.endsWith('.generated.ts') ? [p] : [];
    });
  /**
   * Env reads as this codebase writes them: `str(env, 'X')`, `env['X']`,
   * `env.X`, `process.env.X`, `ConfigError('X'`, `[ 'X', parser ]` seeds.
   */
  const READS = [
    /\b(?:str|secret|optionalSecret|millis|list)\(\s*(?:env,\s*)?'([A-Z][A-Z0-9_]+)'/g,
    /\benv(?:\.raw)?\[\s*['"]([A-Z][A-Z0-9_]+)['"]\s*\]/g,
    /\b(?:process\.)?env\??\.([A-Z][A-Z0-9_]{2,})\b/g,
    /\benv\.get\(\s*['"]([A-Z][A-Z0-9_]+)['"]/g,
    /ConfigError\(\s*'([A-Z][A-Z0-9_]+)'/g,
    /\bfail\(\s*'([A-Z][A-Z0-9_]+)'/g,
    /:\s*\[\s*'([A-Z][A-Z0-9_]+)',\s*(?:\(|list|json|integer|jsonObjectOver)/g,
  ];
  // The shared scan of the .env.example drift test, plus a wider one over every package of the repository.
  const found = readNames();
  for (const file of ['src', 'common', 'adapter', 'cli', 'bin', 'demo', 'examples'].flatMap(files)) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const re of READS) for (const m of text.matchAll(re)) found.add(m[1]!);
  }
  // The documented ones too: every env table of docs/configuration.md and every line of .env.example.
  const config = readFileSync(join(root, 'docs/configuration.md'), 'utf8');
  for (const m of config.matchAll(/^\| `([A-Z][A-Z0-9_]+)`(?:, `([A-Z][A-Z0-9_]+)`)*/gm))
    for (const n of m.slice(1)) if (n) found.add(n);
  for (const m of readFileSync(join(root, '.env.example'), 'utf8').matchAll(/^#?\s?([A-Z][A-Z0-9_]+)=/gm))
    found.add(m[1]!);
  const providerSecrets = [...found].filter((n) => /_CLIENT_SECRET$/.test(n) && !isServiceEnvName(n));

  it('finds the env readers (the scan is not silently empty)', () => {
    for (const n of [
      'ISSUER',
      'API_SERVICE_TOKEN',
      'OAUTH_STATE_SECRET',
      'REFRESH_TOKEN_LOOKUP_SECRET',
      'TOTP_SECRET_ENCRYPTION_KEY',
      'DECOY_SUBJECT_SECRET',
      'DATABASE_AUTH_TOKEN',
      'COOKIE_SECRET',
      'DELIVERY_WEBHOOK_SECRET',
      'OAUTH_PROVIDERS',
      'SVC_JWKS_PUBLIC_KEYS',
    ]) {
      expect(found).toContain(n);
    }
  });

  it('denies every one of them (only example provider secrets are exempt)', () => {
    expect(providerSecrets.every((n) => /^(GOOGLE|GITHUB|EXAMPLE|TESTOP|ACME)_CLIENT_SECRET$/.test(n))).toBe(true);
    const notDenied = [...found].filter((n) => !providerSecrets.includes(n) && !isServiceEnvName(n));
    expect(notDenied).toEqual([]);
  });

  it('denies the families named by the rule', () => {
    for (const n of [
      'SVC_JWKS_KEY_abc_PRIVATE',
      'SVC_ANYTHING',
      'DATABASE_PASSWORD',
      'MY_SIGNING_PRIVATE_KEY',
      'X_PRIVATE',
      'SVC_GITHUB_CLIENT_SECRET',
      'DATABASE_CLIENT_SECRET',
    ]) {
      expect(isServiceEnvName(n)).toBe(true);
      expect(clientSecretEnvProblem(n, [n])).not.toBeNull();
    }
    expect(clientSecretEnvProblem('GITHUB_CLIENT_SECRET', [])).toBeNull();
    expect(clientSecretEnvProblem('_CLIENT_SECRET', [])).not.toBeNull();
    expect(clientSecretEnvProblem(`${'A'.repeat(121)}_CLIENT_SECRET`, [])).toBeNull();
    expect(clientSecretEnvProblem(`${'A'.repeat(122)}_CLIENT_SECRET`, [])).not.toBeNull();
  });
});
