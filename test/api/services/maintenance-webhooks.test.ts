/**
 * Maintenance of the webhook outbox: a delivery that finished (`succeeded` or
 * `failed`) more than 30 days ago goes; a `pending` one never does, however
 * old (a resent row, a row under a sender's lease), and neither does a row
 * that finished recently, however long ago it was queued. Bounded like every
 * purge, and read through an index (the plan is checked here too).
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Client, InStatement } from '@libsql/client';
import { wrapClient } from '../../../src/db/client.js';
import { runMaintenance } from '../../../src/services/maintenance.js';
import { prepareClient } from '../../helpers/make-app.js';

const DAY = 86_400_000;

async function withEndpoint(client: Client, nowMs: number) {
  await client.execute({
    sql: `INSERT INTO webhook_endpoints (id, url, event_types, secret_ciphertext, secret_iv, enabled, created_at, updated_at)
      VALUES ('ep', 'https://hooks.example/', '["*"]', 'c', 'iv', 1, ?, ?)`,
    args: [nowMs - 90 * DAY, nowMs - 90 * DAY],
  });
}

/** A delivery row; `nextAttemptAt` is when a finished row finished (the dispatcher's settle writes it so). */
const delivery = (
  client: Client,
  row: { id: string; status: string; nextAttemptAt: number; createdAt: number; leaseId?: string },
) =>
  client.execute({
    sql: `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, attempts, next_attempt_at, lease_id, created_at, updated_at)
      VALUES (?, 'ep', 'ev', 'session_issued', '{}', ?, 1, ?, ?, ?, ?)`,
    args: [row.id, row.status, row.nextAttemptAt, row.leaseId ?? null, row.createdAt, row.nextAttemptAt],
  });

const ids = async (client: Client) =>
  (await client.execute('SELECT id FROM webhook_deliveries ORDER BY id')).rows.map((r) => String(r['id']));

describe('runMaintenance: webhook deliveries', () => {
  it('deletes finished deliveries older than 30 days and keeps pending and recent ones', async () => {
    const client = await prepareClient();
    const now = Date.now();
    await withEndpoint(client, now);
    await delivery(client, {
      id: 'old-succeeded',
      status: 'succeeded',
      nextAttemptAt: now - 31 * DAY,
      createdAt: now - 31 * DAY,
    });
    await delivery(client, {
      id: 'old-failed',
      status: 'failed',
      nextAttemptAt: now - 31 * DAY,
      createdAt: now - 33 * DAY,
    });
    // Queued long ago, finished 29 days ago (a resend): kept until 30 days after it finished.
    await delivery(client, {
      id: 'recent-failed',
      status: 'failed',
      nextAttemptAt: now - 29 * DAY,
      createdAt: now - 60 * DAY,
    });
    await delivery(client, {
      id: 'recent-succeeded',
      status: 'succeeded',
      nextAttemptAt: now - DAY,
      createdAt: now - DAY,
    });
    // Pending, however old: due and never claimed, or held under a sender's lease.
    await delivery(client, {
      id: 'old-pending',
      status: 'pending',
      nextAttemptAt: now - 40 * DAY,
      createdAt: now - 40 * DAY,
    });
    await delivery(client, {
      id: 'leased',
      status: 'pending',
      nextAttemptAt: now - 35 * DAY,
      createdAt: now - 45 * DAY,
      leaseId: 'lease-1',
    });

    expect(await runMaintenance(wrapClient(client, 'file').db, now)).toBe(2);
    expect(await ids(client)).toEqual(['leased', 'old-pending', 'recent-failed', 'recent-succeeded']);
    // The endpoint stays: only its old outcomes go.
    expect(Number((await client.execute('SELECT COUNT(*) AS n FROM webhook_endpoints')).rows[0]!['n'])).toBe(1);
  });

  it('purges in statements of at most batchRows rows and stops at its batch budget', async () => {
    const client = await prepareClient();
    const now = Date.now();
    await withEndpoint(client, now);
    const db = wrapClient(client, 'file').db;
    await db.run(sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1050)
      INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at, updated_at)
      SELECT 'd' || i, 'ep', 'ev', 'session_issued', '{}', CASE i % 2 WHEN 0 THEN 'succeeded' ELSE 'failed' END, 1,
        ${now - 31 * DAY}, ${now - 32 * DAY}, ${now - 31 * DAY} FROM n`);
    await delivery(client, {
      id: 'pending',
      status: 'pending',
      nextAttemptAt: now - 31 * DAY,
      createdAt: now - 32 * DAY,
    });
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
    expect((await ids(client)).length).toBe(551); // the rest waits for the next run
    expect(await runMaintenance(db, now, { batchRows: 100, maxBatchesPerRun: 20 })).toBe(550);
    expect(await ids(client)).toEqual(['pending']);
  });

  it('finds the rows to purge through an index, not a scan of the outbox', async () => {
    const client = await prepareClient();
    const seen: string[] = [];
    const recording = new Proxy(client, {
      get(target, prop, receiver) {
        if (prop === 'execute')
          return (s: InStatement) => (seen.push(typeof s === 'string' ? s : s.sql), target.execute(s));
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    await runMaintenance(wrapClient(recording, 'file').db, Date.now());
    const purge = seen.filter((s) => /DELETE FROM "?webhook_deliveries"?/i.test(s));
    expect(purge).toHaveLength(1);
    const params = (purge[0]!.match(/\?/g) ?? []).length;
    const plan = await client.execute({ sql: `EXPLAIN QUERY PLAN ${purge[0]}`, args: Array(params).fill(null) });
    const details = plan.rows.map((r) => String(r['detail']));
    expect(details.filter((d) => /^SCAN webhook_deliveries(?! USING)/.test(d))).toEqual([]);
    expect(details.some((d) => /SEARCH webhook_deliveries USING (COVERING )?INDEX/.test(d))).toBe(true);
  });
});
