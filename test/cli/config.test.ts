/**
 * `svc config get|set` against a libSQL file and sqld, and against a running
 * API on the same database: the CLI refuses exactly what PATCH
 * /system-config/admin refuses (same code, same issue paths), and a running
 * instance serves the change once its 60 s config cache expires.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUserByEmail } from '../../src/repositories/users.js';
import { signedIn } from '../helpers/admin.js';
import { signIn } from '../helpers/factories.js';
import { makeApi, prepareClient, type TestApi } from '../helpers/make-app.js';
import { BACKENDS, bootstrap, fileDb, query, svc, type TestDb } from './helpers.js';

const stored = async (db: TestDb, key: string) =>
  JSON.parse((await query<{ value: string }>(db, 'SELECT value FROM system_config WHERE key = ?', [key]))[0]!.value);

describe.each(BACKENDS)('svc config on a %s', (_name, make) => {
  let db: TestDb;
  let env: Record<string, string>;
  beforeAll(async () => {
    db = await make();
    env = { DATABASE_URL: db.url };
    await svc(['migrate'], env);
  }, 30_000);
  afterAll(() => db.stop());

  it('refuses get and set before the API has written the config rows (exit 3 for set)', async () => {
    const set = await svc(['config', 'set', 'app_name', 'Acme'], env);
    expect(set.code).toBe(3);
    expect(set.stderr).toMatch(/^svc: error: system config has no row for app_name, .*: start the API once/);
    const get = await svc(['config', 'get', 'app_name', '--json'], env);
    expect(get).toMatchObject({ code: 1, json: { ok: false, error: 'not_bootstrapped' } });
  });

  it('gets every stored key, or one key as bare JSON', async () => {
    await bootstrap(db);
    const all = await svc(['config', 'get', '--json'], env);
    expect(all.code).toBe(0);
    expect(all.json.values).toMatchObject({
      app_name: 'svc',
      rpid: 'example.com',
      origins: ['https://app.example.com'],
    });
    expect(all.json.missing).toEqual([]);
    const one = await svc(['config', 'get', 'origins'], env);
    expect(one).toMatchObject({ code: 0, stdout: '["https://app.example.com"]\n' });
  });

  it('refuses an unknown key on get as a usage error', async () => {
    const run = await svc(['config', 'get', 'nope'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^svc: error: unknown config key "nope" \(keys: app_name, /);
  });

  it('sets a plain-string value and a JSON value, states the cache delay, and records the event without an actor', async () => {
    const name = await svc(['config', 'set', 'app_name', 'Acme Sign-in'], env);
    expect(name.code).toBe(0);
    expect(name.stdout).toBe(
      'updated app_name\nRunning API instances cache the config for 60 s: each one serves the new value within 60 s, without a restart.\n',
    );
    const policy = { enabled: true, maxFailures: 5, windowSeconds: 600, lockoutSeconds: 600 };
    const json = await svc(['config', 'set', 'lockout_policy', JSON.stringify(policy), '--json'], env);
    expect(json.json).toEqual({ ok: true, updatedKeys: ['lockout_policy'], cacheTtlSeconds: 60 });
    expect(await stored(db, 'app_name')).toBe('Acme Sign-in');
    expect(await stored(db, 'lockout_policy')).toEqual(policy);
    expect(await query(db, "SELECT updated_by FROM system_config WHERE key = 'app_name'")).toEqual([
      expect.objectContaining({ updated_by: null }),
    ]);
    const events = await query<{ metadata: string; user_agent: string }>(
      db,
      "SELECT metadata, user_agent FROM auth_events WHERE type = 'system_config_updated' ORDER BY created_at",
    );
    expect(JSON.parse(events[0]!.metadata)).toMatchObject({
      updatedKeys: ['app_name'],
      before: { app_name: 'svc' },
      after: { app_name: 'Acme Sign-in' },
    });
    expect(events[0]!.user_agent).toMatch(/^svc-cli\//);
  });

  it('refuses an invalid value in one line, exit 1, and leaves the row as it was', async () => {
    const run = await svc(['config', 'set', 'rate_limit', '0'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'svc: error: invalid_request: Request failed schema validation. (rate_limit: Too small: expected number to be >=1)\n',
    );
    expect(await stored(db, 'rate_limit')).toBe(100);
  });
});

describe('svc config set follows the admin PATCH route exactly', () => {
  let db: TestDb;
  let t: TestApi;
  let adminToken: string;
  beforeAll(async () => {
    db = await fileDb();
    await svc(['migrate'], { DATABASE_URL: db.url });
    // A running API on the same database file, with a clock the test moves.
    t = await makeApi({
      client: await prepareClient(db.url),
      env: { AVAILABLE_ROLES: 'user,admin,admin:read,admin:write,editor' },
    });
    adminToken = (await signedIn(t, ['user', 'admin'])).token;
    await signedIn(t, ['user', 'editor']);
  }, 30_000);
  afterAll(async () => {
    await t.api.close();
    await db.stop();
  });

  it.each([
    ['a value of the wrong type', 'rate_limit', '"many"'],
    ['an unknown key', 'no_such_key', '1'],
    ['a default role that is not available', 'default_roles', '["user","ghost"]'],
    ['dropping a role users hold', 'available_roles', '["user","admin","admin:read","admin:write"]'],
    ['dropping a current default role', 'available_roles', '["admin","admin:read","admin:write","editor"]'],
    ['a duration out of range', 'access_token_ttl', '2d'],
    ['origins[0] that is not http(s)', 'origins', '["android:apk-key-hash:abc"]'],
    // A provider may not name a variable the service reads for itself
    [
      'a provider whose clientSecretEnv is API_SERVICE_TOKEN',
      'oauth_providers',
      JSON.stringify([
        {
          id: 'evil',
          name: 'Evil',
          clientId: 'c',
          clientSecretEnv: 'API_SERVICE_TOKEN',
          authorizationUrl: 'https://evil.example/a',
          tokenUrl: 'https://evil.example/t',
          userInfoUrl: 'https://evil.example/u',
        },
      ]),
    ],
  ])("refuses %s with the route's code and issue paths", async (_case, key, text) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
    const route = await t.call('PATCH', '/system-config/admin', { token: adminToken, body: { [key]: value } });
    expect(route.status).toBe(400);
    const before = await query(db, 'SELECT key, value, updated_at FROM system_config ORDER BY key');
    const cli = await svc(['config', 'set', key, text, '--json'], { DATABASE_URL: db.url });
    expect(cli.code).toBe(1);
    expect(cli.json.error).toBe(route.body.error);
    const paths = (body: any) => (body.details?.issues ?? []).map((i: { path: unknown[] }) => i.path);
    expect(paths(cli.json)).toEqual(paths(route.body));
    expect(await query(db, 'SELECT key, value, updated_at FROM system_config ORDER BY key')).toEqual(before);
  });

  it('gives an account made by svc admin create the admin API of the running instance', async () => {
    expect((await svc(['admin', 'create', '--email', 'cli-admin@example.com'], { DATABASE_URL: db.url })).code).toBe(0);
    const user = (await findUserByEmail(t.api.deps.db, 'cli-admin@example.com'))!;
    const { token } = await signIn(t, user, 'email_otp');
    const res = await t.call('GET', '/system-config/admin', { token });
    expect(res.status).toBe(200);
  });

  it('is served by a running API once its 60 s config cache expires, without a restart', async () => {
    const publicName = async () => (await t.call('GET', '/system-config/public')).body.appName;
    expect(await publicName()).toBe('svc test');
    expect((await svc(['config', 'set', 'app_name', 'Renamed by CLI'], { DATABASE_URL: db.url })).code).toBe(0);
    expect(await publicName()).toBe('svc test'); // still cached
    t.clock.advance(59_000);
    expect(await publicName()).toBe('svc test');
    t.clock.advance(1_000);
    expect(await publicName()).toBe('Renamed by CLI');
  });
});
