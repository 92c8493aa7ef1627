/**
 * D1 failure modes (bad input is a 4xx, a failure never a bare 500), in process: the
 * Workers entry's boot with a missing, misnamed or broken D1 binding, and a D1
 * write failing mid-request. The D1 here is a stand-in with D1's binding
 * surface (prepare/bind/raw/run/batch, batch = one transaction) over a real
 * libSQL database, so faults can be injected per statement; the real local D1
 * under workerd is exercised by test/runtime/d1.smoke.test.ts.
 */
import { createClient } from '@libsql/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { d1Client } from '../../../src/db/d1-client.js';
import { fakeD1 } from '../../helpers/fake-d1.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { baseEnv, makeApi, prepareClient } from '../../helpers/make-app.js';

const STACK_FRAME = /\n\s+at |\.ts:\d+/;

describe('a D1 write failing mid-request', () => {
  it('answers 500 internal_error without a stack and leaves the refresh token unspent (no half-written rotation)', async () => {
    const libsql = await prepareClient();
    let failing = false;
    const d1 = fakeD1(libsql, (sql) => failing && /insert into "?sessions"?/i.test(sql));
    const t = await makeApi({ client: d1Client(d1) });
    const user = await createUser(t, { email: 'd1.fail@example.com' });
    const { refreshToken } = await signIn(t, user);
    const rows = async () =>
      Number((await libsql.execute('SELECT count(*) AS n FROM sessions WHERE revoked_at IS NULL')).rows[0]!['n']);
    const before = await rows();

    failing = true;
    const res = await t.call('POST', '/refresh', { token: refreshToken });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'internal_error', message: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toMatch(STACK_FRAME);
    expect(JSON.stringify(res.body)).not.toContain('D1_ERROR');
    expect(await rows()).toBe(before);

    // The claim of the old token rolled back with the failed successor insert: the same token still rotates once.
    failing = false;
    const retry = await t.call('POST', '/refresh', { token: refreshToken });
    expect(retry.status).toBe(200);
    expect((await t.call('POST', '/refresh', { token: refreshToken })).status).toBe(401);
  });
});

describe('the Workers entry with a missing, misnamed or broken D1 binding', () => {
  const ctx = { waitUntil() {}, passThroughOnException() {} };
  const env = { ...baseEnv, NODE_ENV: 'development' };
  let errors: string[];
  beforeEach(() => {
    vi.resetModules(); // the entry keeps its booted app per isolate: a fresh module is a fresh isolate
    errors = [];
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void errors.push(args.join(' ')));
  });
  afterEach(() => vi.restoreAllMocks());

  const worker = async () => (await import('../../../src/worker.js')).default;
  const health = (w: Awaited<ReturnType<typeof worker>>, e: Record<string, unknown>) =>
    w.fetch(new Request('http://auth.test/health/status'), e, ctx);

  it('without a binding: 500 envelope, one line naming DATABASE_URL and the binding to add; the next request boots again', async () => {
    const w = await worker();
    const res = await health(w, env);
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: 'internal_error' });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/DATABASE_URL: .*binding = "DB"/);
    expect(errors[0]).not.toContain('\n');

    const fixed = await health(w, { ...env, DB: fakeD1(createClient({ url: ':memory:', intMode: 'number' })) });
    expect(fixed.status).toBe(200);
  });

  it('with a DATABASE_URL and no D1 binding: the line points at the libSQL entry (src/worker-libsql.ts)', async () => {
    const res = await health(await worker(), { ...env, DATABASE_URL: 'http://127.0.0.1:1' });
    expect(res.status).toBe(500);
    expect(errors).toEqual([
      expect.stringMatching(
        /DATABASE_URL: is for sqld or Turso, which the libSQL entry serves: set main = "src\/worker-libsql\.ts"/,
      ),
    ]);
  });

  it('the libSQL entry refuses a DATABASE_URL it cannot open on Workers (file:, ws:) with one line', async () => {
    const libsqlWorker = (await import('../../../src/worker-libsql.js')).default;
    for (const url of ['file:./x.db', 'ws://127.0.0.1:1', '']) {
      errors.length = 0;
      const res = await libsqlWorker.fetch(
        new Request('http://auth.test/health/status'),
        { ...env, DATABASE_URL: url },
        ctx,
      );
      expect(res.status).toBe(500);
      expect(errors).toEqual([
        expect.stringMatching(/DATABASE_URL: must be an http\(s\):\/\/ \(sqld\) or libsql:\/\/ \(Turso\) URL/),
      ]);
    }
  });

  it('with DATABASE_BINDING naming a binding that does not exist: the line names it', async () => {
    const res = await health(await worker(), {
      ...env,
      DATABASE_BINDING: 'AUTH_DB',
      DB: fakeD1(createClient({ url: ':memory:' })),
    });
    expect(res.status).toBe(500);
    expect(errors).toEqual([expect.stringMatching(/DATABASE_BINDING: there is no D1 binding named AUTH_DB/)]);
  });

  it('with a D1 that cannot be migrated: 500 envelope and one line naming the binding; nothing was applied', async () => {
    const libsql = createClient({ url: ':memory:', intMode: 'number' });
    const res = await health(await worker(), {
      ...env,
      DATABASE_BINDING: 'AUTH_DB',
      AUTH_DB: fakeD1(libsql, (sql) => /^\s*create table `?users/i.test(sql)),
    });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: 'internal_error' });
    expect(errors).toEqual([expect.stringMatching(/^svc-auth: boot failed: D1 binding AUTH_DB: .*D1_ERROR/)]);
    const tables = (await libsql.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'users'"))
      .rows;
    expect(tables).toHaveLength(0);
  });
});
