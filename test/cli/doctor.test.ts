/**
 * `svc doctor` checks an environment with the production boot's rules and
 * prints one line per finding; any error finding makes the exit code 1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/db/migrations.generated.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, removeDir, tempDir } from '../runtime/processes.js';
import { bootstrap, fileDb, SEEDS, sqldDb, svc, type TestDb } from './helpers.js';

const secret = (c: string) => c.repeat(40);
let db: TestDb;
let empty: TestDb;
let fresh: TestDb;
let good: Record<string, string>;
let otherKey: Record<string, string>;

beforeAll(async () => {
  [db, empty, fresh] = await Promise.all([fileDb(), fileDb(), sqldDb()]);
  await svc(['migrate'], { DATABASE_URL: db.url });
  await svc(['migrate'], { DATABASE_URL: empty.url });
  await bootstrap(db);
  const [keys, other] = await Promise.all([
    svc(['keys', 'generate', '--kid', 'live', '--json']),
    svc(['keys', 'generate', '--kid', 'live', '--json']),
  ]);
  otherKey = other.json.variables;
  good = {
    NODE_ENV: 'production',
    ISSUER: 'https://auth.example.com',
    DATABASE_URL: db.url,
    API_SERVICE_TOKEN: secret('a'),
    OAUTH_STATE_SECRET: secret('b'),
    REFRESH_TOKEN_LOOKUP_SECRET: secret('c'),
    TOTP_SECRET_ENCRYPTION_KEY: secret('d'),
    DECOY_SUBJECT_SECRET: secret('e'),
    APP_ORIGINS: 'https://app.example.com',
    ...keys.json.variables,
  };
}, 60_000);
afterAll(() => Promise.all([db.stop(), empty.stop(), fresh.stop()]));

/** The error findings of one run, as `check: message`. */
async function errors(env: Record<string, string | undefined>, args: string[] = []) {
  const run = await svc(['doctor', '--json', ...args], env);
  const found = (run.json.findings as { level: string; check: string; message: string }[])
    .filter((f) => f.level === 'error')
    .map((f) => `${f.check}: ${f.message}`);
  return { code: run.code, found };
}

describe('svc doctor', () => {
  it('passes a sound production environment, one finding per line, exit 0', async () => {
    const run = await svc(['doctor'], good);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    for (const line of lines.slice(0, -1)) expect(line).toMatch(/^(ok {3}|warn ) \S[^\n]*: \S/);
    expect(lines.at(-1)).toBe('no errors, 0 warning(s)');
    expect(run.stdout).toContain('ok    SVC_JWKS_ACTIVE_KID: live matches its published public key (published: live)');
    expect(run.stdout).toContain(`ok    migrations: all ${MIGRATIONS.length} applied`);
    expect(run.stdout).toContain('ok    origins: 1 origin(s) under rpid example.com');
  });

  it.concurrent.each([
    [
      'a secret shorter than 32 characters',
      { API_SERVICE_TOKEN: 'short' },
      'API_SERVICE_TOKEN: must be at least 32 characters',
    ],
    ['a missing production secret', { OAUTH_STATE_SECRET: undefined }, 'OAUTH_STATE_SECRET: is required in production'],
    ['an http ISSUER', { ISSUER: 'http://auth.example.com' }, 'ISSUER: must use https in production'],
    [
      'a private key that does not match the published key',
      { SVC_JWKS_KEY_live_PRIVATE: '' },
      'SVC_JWKS_KEY_live_PRIVATE: does not match the published public key of live',
    ],
    [
      'an active kid that is not published',
      { SVC_JWKS_ACTIVE_KID: 'gone' },
      'SVC_JWKS_KEY_gone_PRIVATE: is required in production (PKCS#8 PEM of the active key)',
    ],
    [
      'an http APP_ORIGINS entry',
      { APP_ORIGINS: 'http://app.example.com' },
      'APP_ORIGINS: http://app.example.com must use https in production',
    ],
    [
      'a config seed that does not parse',
      { RATE_LIMIT: 'lots' },
      'RATE_LIMIT: must be a base-10 integer (seed of rate_limit)',
    ],
    [
      'console delivery',
      { DELIVERY_MODE: 'console' },
      'DELIVERY_MODE: console prints codes and links and is refused in production',
    ],
  ])('reports %s as an error line, exit 1', async (_case, change, expected) => {
    const env: Record<string, string | undefined> = { ...good, ...change };
    if ('SVC_JWKS_KEY_live_PRIVATE' in change) env['SVC_JWKS_KEY_live_PRIVATE'] = otherKey['SVC_JWKS_KEY_live_PRIVATE'];
    const { code, found } = await errors(env);
    expect(code).toBe(1);
    // Only findings about that variable (a short API_SERVICE_TOKEN also counts as missing, as at boot).
    expect(found[0]).toBe(expected);
    expect(found.map((f) => f.split(':')[0])).toEqual(found.map(() => expected.split(':')[0]));
  });

  it('reports a database that does not answer', async () => {
    const port = await freePort();
    const { code, found } = await errors({ ...good, DATABASE_URL: `http://127.0.0.1:${port}` });
    expect(code).toBe(1);
    expect(found).toEqual([
      expect.stringMatching(
        new RegExp(`^DATABASE_URL: cannot reach the database at http://127\\.0\\.0\\.1:${port} \\(`),
      ),
    ]);
  });

  it('reports a database that is not migrated, without migrating it', async () => {
    const { code, found } = await errors({ ...good, DATABASE_URL: fresh.url });
    expect(code).toBe(1);
    expect(found).toEqual([
      `migrations: ${MIGRATIONS.length} pending (${MIGRATIONS.map((m) => m.tag).join(', ')}): run svc migrate`,
    ]);
    expect((await errors({ ...good, DATABASE_URL: fresh.url })).found).toHaveLength(1);
  });

  it('checks the config a first start would store: production has no rpid/origins default', async () => {
    const { found } = await errors({ ...good, DATABASE_URL: empty.url });
    expect(found).toEqual([
      'rpid: no row, no RPID seed and no built-in default',
      'origins: no row, no ORIGINS seed and no built-in default',
    ]);
  });

  it('reports http WebAuthn origins and an rpid that does not cover an origin', async () => {
    const { found } = await errors({
      ...good,
      DATABASE_URL: empty.url,
      RPID: SEEDS['RPID'],
      ORIGINS: 'http://app.example.com,https://app.other.org',
    });
    expect(found).toEqual([
      'origins: http://app.example.com must use https (browsers refuse passkeys on http origins other than localhost)',
      'rpid: example.com is not app.other.org or a parent domain of it: passkeys from https://app.other.org would fail',
    ]);
  });

  it('applies production rules when NODE_ENV is not production, and says so; --development relaxes them', async () => {
    const dev = { ISSUER: 'http://localhost:8787', DATABASE_URL: db.url };
    const prod = await svc(['doctor', '--json'], dev);
    expect(prod.code).toBe(1);
    expect(prod.json.findings[0]).toEqual({
      level: 'warn',
      check: 'NODE_ENV',
      message: 'is unset: the API would boot in development mode; checked with production rules',
    });
    expect(
      prod.json.findings.filter((f: { level: string }) => f.level === 'error').map((f: { check: string }) => f.check),
    ).toContain('API_SERVICE_TOKEN');
    // Development derives rpid/origins from ISSUER, as its boot does: an empty config is fine.
    const relaxed = await svc(['doctor', '--development', '--json'], { ...dev, DATABASE_URL: empty.url });
    expect(relaxed.json).toMatchObject({ ok: true, mode: 'development', errors: 0 });
  });

  it('--development checks what `npm start` runs: its defaults < .env < the environment', async () => {
    const dir = tempDir('doctor-dev');
    try {
      // A bare checkout: no ISSUER anywhere, as after `npm start`. It used to say `error ISSUER: is required`.
      const bare = await svc(['doctor', '--development', '--json'], {}, { cwd: dir });
      const bareErrors = bare.json.findings
        .filter((f: { level: string }) => f.level === 'error')
        .map((f: { check: string; message: string }) => `${f.check}: ${f.message}`);
      expect(bareErrors.filter((e: string) => e.startsWith('ISSUER'))).toEqual([]);
      expect(bare.json.findings[0]).toEqual({
        level: 'ok',
        check: 'environment',
        message:
          "development: npm start's defaults < .env < this environment (ISSUER http://127.0.0.1:8787, DATABASE_URL file:./.data/svc.db)",
      });
      // `.env` is read from the working directory, and the environment wins over it.
      writeFileSync(join(dir, '.env'), `DATABASE_URL=${db.url}\nPORT=9999\n`);
      const withDotEnv = await svc(['doctor', '--development', '--json'], { HOST: 'localhost' }, { cwd: dir });
      expect(withDotEnv.json).toMatchObject({ ok: true, mode: 'development', errors: 0 });
      expect(withDotEnv.json.findings[0].message).toBe(
        `development: npm start's defaults < .env < this environment (ISSUER http://localhost:9999, DATABASE_URL ${db.url})`,
      );
      // The first line never prints a credential of DATABASE_URL (docs/cli.md: printed URLs carry none).
      const secretUrl = await svc(
        ['doctor', '--development', '--json'],
        { DATABASE_URL: 'http://user:hunter2-password@127.0.0.1:1/?authToken=tok-secret-123' },
        { cwd: dir },
      );
      expect(JSON.stringify(secretUrl.json.findings[0])).not.toMatch(/hunter2|tok-secret|authToken/);
      // Production rules read no defaults: the same directory still needs a real ISSUER.
      const prod = await svc(['doctor', '--json'], {}, { cwd: dir });
      expect(prod.json.findings.map((f: { check: string; message: string }) => `${f.check}: ${f.message}`)).toContain(
        'ISSUER: is required (the public base URL of the auth API)',
      );
    } finally {
      removeDir(dir);
    }
  });
});
