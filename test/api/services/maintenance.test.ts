/**
 * Maintenance (contract §2): each table's expired rows go and its live rows
 * stay; deletes go in bounded batches, so a large purge never holds the write
 * lock in one long statement, and a run stops at its batch budget.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { wrapClient } from '../../../src/db/client.js';
import { runMaintenance } from '../../../src/services/maintenance.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, prepareClient } from '../../helpers/make-app.js';

const DAY = 86_400_000;
const count = async (client: Awaited<ReturnType<typeof prepareClient>>, table: string) =>
  Number((await client.execute(`SELECT COUNT(*) AS n FROM ${table}`)).rows[0]!['n']);

describe('runMaintenance', () => {
  it('deletes what expired and keeps what is live, table by table', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    await signIn(t, user); // a live session
    const now = t.clock.now();
    const c = t.client;
    await c.execute({
      sql: `INSERT INTO sessions (id, user_id, chain_id, refresh_token_hash, refresh_token_lookup, expires_at, idle_expires_at, created_at, updated_at) VALUES ('old', ?, 'c-old', 'h', 'l-old', ?, ?, ?, ?)`,
      args: [user.id, now - 31 * DAY, now - 31 * DAY, now - 40 * DAY, now - 40 * DAY],
    });
    await c.execute({
      sql: `INSERT INTO sessions (id, user_id, chain_id, refresh_token_hash, refresh_token_lookup, expires_at, idle_expires_at, created_at, updated_at) VALUES ('recent', ?, 'c-recent', 'h', 'l-recent', ?, ?, ?, ?)`,
      args: [user.id, now - 29 * DAY, now - 29 * DAY, now - 40 * DAY, now - 40 * DAY],
    });
    await c.execute({
      sql: 'INSERT INTO otp_codes (user_id, channel, code_hash, expires_at, attempts, created_at) VALUES (?, ?, ?, ?, 0, ?)',
      args: [user.id, 'email', 'x', now - 1, now - 600_000],
    });
    await c.execute({
      sql: 'INSERT INTO otp_codes (user_id, channel, code_hash, expires_at, attempts, created_at) VALUES (?, ?, ?, ?, 0, ?)',
      args: [user.id, 'phone', 'x', now + 60_000, now],
    });
    await c.execute({
      sql: 'INSERT INTO auth_failures (subject, type, occurred_at) VALUES (?, ?, ?), (?, ?, ?)',
      args: ['s', 'otp', now - 8 * DAY, 's', 'otp', now - DAY],
    });
    await c.execute({
      sql: 'INSERT INTO rate_limit_counters (key, window_start, count, expires_at) VALUES (?, 0, 1, ?), (?, 0, 1, ?)',
      args: ['gone', now - 1, 'kept', now + 60_000],
    });
    const sessionsBefore = await count(c, 'sessions');

    const deleted = await runMaintenance(wrapClient(c, 'file').db, now);
    expect(deleted).toBe(4);
    expect(await count(c, 'sessions')).toBe(sessionsBefore - 1);
    expect((await c.execute("SELECT id FROM sessions WHERE id IN ('old', 'recent')")).rows.map((r) => r['id'])).toEqual(
      ['recent'],
    );
    expect((await c.execute('SELECT channel FROM otp_codes')).rows.map((r) => r['channel'])).toEqual(['phone']);
    expect(await count(c, 'auth_failures')).toBe(1);
    expect((await c.execute('SELECT key FROM rate_limit_counters')).rows.map((r) => r['key'])).toContain('kept');
  });

  it('purges in statements of at most batchRows rows and stops at its batch budget', async () => {
    const client = await prepareClient();
    const now = Date.now();
    const db = wrapClient(client, 'file').db;
    await db.run(sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1050)
      INSERT INTO rate_limit_counters (key, window_start, count, expires_at) SELECT 'k' || i, 0, 1, ${now - 1} FROM n`);
    const statements: number[] = [];
    const counting = new Proxy(db, {
      get(target, prop, receiver) {
        if (prop !== 'run') return Reflect.get(target, prop, receiver);
        return async (q: Parameters<typeof db.run>[0]) => {
          const r = await target.run(q);
          statements.push(r.rowsAffected);
          return r;
        };
      },
    });
    expect(await runMaintenance(counting, now, { batchRows: 100, maxBatchesPerRun: 5 })).toBe(500);
    expect(Math.max(...statements)).toBeLessThanOrEqual(100);
    expect(await count(client, 'rate_limit_counters')).toBe(550); // the rest waits for the next run
    expect(await runMaintenance(db, now, { batchRows: 100, maxBatchesPerRun: 20 })).toBe(550);
    expect(await count(client, 'rate_limit_counters')).toBe(0);
  });
});
