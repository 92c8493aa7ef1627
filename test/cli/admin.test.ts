/**
 * `svc admin create` against a libSQL file and sqld: creates a verified
 * admin or promotes an existing account, writes an auth event, and a second
 * run changes nothing.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, bootstrap, fileDb, query, svc, type TestDb } from './helpers.js';

interface UserRow {
  id: string;
  email: string;
  roles: string;
  verified: number;
  email_verified: number;
}

const userByEmail = async (db: TestDb, email: string) =>
  (await query<UserRow>(db, 'SELECT * FROM users WHERE email = ?', [email]))[0];
const events = (db: TestDb, userId: string) =>
  query<{ type: string; metadata: string; user_agent: string; actor_user_id: string | null }>(
    db,
    'SELECT * FROM auth_events WHERE user_id = ? ORDER BY created_at',
    [userId],
  );

describe.each(BACKENDS)('svc admin create on a %s', (_name, make) => {
  let db: TestDb;
  let env: Record<string, string>;
  beforeAll(async () => {
    db = await make();
    env = { DATABASE_URL: db.url };
    expect((await svc(['migrate'], env)).code).toBe(0);
    await bootstrap(db);
  }, 30_000);
  afterAll(() => db.stop());

  it('creates a verified user with the default roles plus admin (email normalised) and writes admin_user_created', async () => {
    const run = await svc(['admin', 'create', '--email', '  Owner@Example.COM ', '--json'], env);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      ok: true,
      outcome: 'created',
      email: 'owner@example.com',
      roles: ['user', 'admin'],
    });
    const user = (await userByEmail(db, 'owner@example.com'))!;
    expect(user).toMatchObject({ id: run.json.userId, verified: 1, email_verified: 1 });
    expect(JSON.parse(user.roles)).toEqual(['user', 'admin']);
    const written = await events(db, user.id);
    expect(written.map((e) => e.type)).toEqual(['admin_user_created']);
    expect(written[0]).toMatchObject({ actor_user_id: null, user_agent: expect.stringMatching(/^svc-cli\//) });
    expect(JSON.parse(written[0]!.metadata)).toMatchObject({ roles: ['user', 'admin'], via: 'cli' });
  });

  it('is idempotent: a second run reports it, changes nothing and writes no event', async () => {
    const before = await userByEmail(db, 'owner@example.com');
    const run = await svc(['admin', 'create', '--email', 'owner@example.com'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^already an admin owner@example\.com /);
    expect(await userByEmail(db, 'owner@example.com')).toEqual(before);
    expect(await events(db, before!.id)).toHaveLength(1);
  });

  it('promotes an existing unverified account: adds admin, keeps its roles, verifies it, writes admin_user_updated', async () => {
    const now = Date.now();
    await query(
      db,
      "INSERT INTO users (id, email, roles, verified, email_verified, phone_verified, revoked, created_at, updated_at) VALUES ('u-editor', 'ed@example.com', '[\"user\",\"editor\"]', 0, 0, 0, 0, ?, ?)",
      [now, now],
    );
    const run = await svc(['admin', 'create', '--email', 'ed@example.com', '--json'], env);
    expect(run.json).toMatchObject({
      ok: true,
      outcome: 'promoted',
      userId: 'u-editor',
      roles: ['user', 'editor', 'admin'],
      changedFields: ['roles', 'verified', 'emailVerified'],
    });
    expect(await userByEmail(db, 'ed@example.com')).toMatchObject({
      roles: '["user","editor","admin"]',
      verified: 1,
      email_verified: 1,
    });
    const written = await events(db, 'u-editor');
    expect(written.map((e) => e.type)).toEqual(['admin_user_updated']);
    expect(JSON.parse(written[0]!.metadata)).toMatchObject({ grantedRole: 'admin', via: 'cli' });
  });

  it('refuses a revoked account without changing it', async () => {
    const now = Date.now();
    await query(
      db,
      "INSERT INTO users (id, email, roles, verified, email_verified, phone_verified, revoked, created_at, updated_at) VALUES ('u-gone', 'gone@example.com', '[\"user\"]', 1, 1, 0, 1, ?, ?)",
      [now, now],
    );
    const run = await svc(['admin', 'create', '--email', 'gone@example.com'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^svc: error: gone@example\.com is revoked: lift it first/);
    expect(await userByEmail(db, 'gone@example.com')).toMatchObject({ roles: '["user"]' });
  });

  it('refuses an invalid email as a usage error, writing nothing', async () => {
    const count = async () => (await query<{ n: number }>(db, 'SELECT count(*) AS n FROM users'))[0]!.n;
    const before = await count();
    const run = await svc(['admin', 'create', '--email', 'not-an-email'], env);
    expect(run).toMatchObject({
      code: 2,
      stderr: 'svc: error: --email is not a valid email address (local@domain.tld, at most 254 characters)\n',
    });
    expect(await count()).toBe(before);
  });
});

describe('svc admin create when the event cannot be written', () => {
  it('writes neither the account nor the event (one batch), exit 1', async () => {
    const db = await fileDb();
    try {
      await svc(['migrate'], { DATABASE_URL: db.url });
      await bootstrap(db);
      await query(
        db,
        "CREATE TRIGGER refuse_events BEFORE INSERT ON auth_events BEGIN SELECT RAISE(ABORT, 'events refused by the test'); END",
      );
      const run = await svc(['admin', 'create', '--email', 'atomic@example.com'], { DATABASE_URL: db.url });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^svc: error: nothing was written \(.*events refused by the test.*\)\n$/);
      expect(await query(db, 'SELECT * FROM users')).toEqual([]);
    } finally {
      await db.stop();
    }
  });
});

describe('svc admin create before the API has started', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await fileDb();
  });
  afterAll(() => db.stop());

  it('refuses a database that does not exist yet (exit 3) without creating the file', async () => {
    const run = await svc(['admin', 'create', '--email', 'a@example.com'], { DATABASE_URL: db.url });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/does not exist .*: run svc migrate first\n$/);
    expect(existsSync(db.path!)).toBe(false);
  });

  it('uses the role lists the first start would store (env seed) when config has no rows yet', async () => {
    await svc(['migrate'], { DATABASE_URL: db.url });
    const run = await svc(['admin', 'create', '--email', 'first@example.com', '--json'], {
      DATABASE_URL: db.url,
      AVAILABLE_ROLES: 'user,admin:write',
      DEFAULT_ROLES: 'user',
    });
    // OWNER_EMAIL's rule: admin:write when admin is not an available role.
    expect(run.json).toMatchObject({ ok: true, outcome: 'created', roles: ['user', 'admin:write'] });
  });

  it('refuses when no admin role is available', async () => {
    const run = await svc(['admin', 'create', '--email', 'x@example.com', '--json'], {
      DATABASE_URL: db.url,
      AVAILABLE_ROLES: 'user',
      DEFAULT_ROLES: 'user',
    });
    expect(run).toMatchObject({ code: 1, json: { ok: false, error: 'role_not_available' } });
    expect(await query(db, "SELECT * FROM users WHERE email = 'x@example.com'")).toEqual([]);
  });
});
