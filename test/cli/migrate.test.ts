/**
 * `svc migrate` against a libSQL file and a sqld server: a dry run writes
 * nothing, a run applies the bundled migrations once and reports them, an
 * unusable DATABASE_URL is exit 3 in one line.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/db/migrations.generated.js';
import { freePort } from '../runtime/processes.js';
import { BACKENDS, query, sqldDb, svc, type TestDb } from './helpers.js';

const TAGS = MIGRATIONS.map((m) => m.tag);

describe.each(BACKENDS)('svc migrate on a %s', (_name, make) => {
  let db: TestDb;
  let env: Record<string, string>;
  beforeAll(async () => {
    db = await make();
    env = { DATABASE_URL: db.url };
  }, 30_000);
  afterAll(() => db.stop());

  it('--dry-run lists every bundled migration as pending and writes nothing', async () => {
    const run = await svc(['migrate', '--dry-run', '--json'], env);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ ok: true, dryRun: true, applied: [], pending: TAGS, alreadyApplied: [] });
    if (db.path) expect(existsSync(db.path)).toBe(false);
    else expect(await query(db, "SELECT name FROM sqlite_master WHERE type = 'table'")).toEqual([]);
  });

  it('applies them and reports each one', async () => {
    const run = await svc(['migrate'], env);
    expect(run.code).toBe(0);
    for (const tag of TAGS) expect(run.stdout).toContain(`applied ${tag}\n`);
    expect(run.stdout).toContain(`${TAGS.length} migration(s) applied`);
    const recorded = await query<{ created_at: number }>(
      db,
      'SELECT created_at FROM __drizzle_migrations ORDER BY created_at',
    );
    expect(recorded.map((r) => Number(r.created_at))).toEqual(MIGRATIONS.map((m) => m.folderMillis));
    expect(await query(db, "SELECT name FROM sqlite_master WHERE name = 'users'")).toHaveLength(1);
  });

  it('is up to date on a second run, and a dry run then has nothing pending', async () => {
    const again = await svc(['migrate', '--json'], env);
    expect(again.json).toMatchObject({ ok: true, applied: [], pending: [], alreadyApplied: TAGS });
    const dry = await svc(['migrate', '--dry-run'], env);
    expect(dry.stdout).toContain('up to date');
    expect(await query(db, 'SELECT count(*) AS n FROM __drizzle_migrations')).toEqual([
      expect.objectContaining({ n: TAGS.length }),
    ]);
  });
});

describe('svc migrate over the libsql: scheme (the form Turso URLs take)', () => {
  it('applies the migrations to sqld through libsql://…?tls=0', async () => {
    const db = await sqldDb();
    try {
      const run = await svc(['migrate', '--json'], { DATABASE_URL: `${db.url.replace('http://', 'libsql://')}?tls=0` });
      expect(run.json).toMatchObject({ ok: true, applied: TAGS });
      expect(run.json.database).toBe(db.url.replace('http://', 'libsql://'));
    } finally {
      await db.stop();
    }
  }, 30_000);
});

describe('svc migrate with an unusable DATABASE_URL', () => {
  it('refuses a URL the API refuses, naming the variable, exit 3', async () => {
    const run = await svc(['migrate'], { DATABASE_URL: 'postgres://db/svc' });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe('svc: error: DATABASE_URL: must be file:, :memory:, libsql:, http(s): or ws(s):\n');
  });

  it('refuses an in-memory database (it would vanish with the process)', async () => {
    const run = await svc(['migrate', '--json'], { DATABASE_URL: ':memory:' });
    expect(run).toMatchObject({ code: 3, json: { ok: false, error: 'config_error' } });
  });

  it('reports a server that does not answer in one line, exit 3', async () => {
    const port = await freePort();
    const run = await svc(['migrate'], { DATABASE_URL: `http://127.0.0.1:${port}` });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(
      new RegExp(`^svc: error: cannot reach the database at http://127\\.0\\.0\\.1:${port} \\(.+\\)\\n$`),
    );
  });

  it('never prints a Turso token from the URL', async () => {
    const port = await freePort();
    const run = await svc(['migrate', '--dry-run'], {
      DATABASE_URL: `http://127.0.0.1:${port}?authToken=secret-token-value`,
    });
    expect(run.code).toBe(3);
    expect(run.stderr).not.toContain('secret-token-value');
  });
});
