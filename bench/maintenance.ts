/**
 * `npm run bench:maintenance`: how long one maintenance DELETE holds the write
 * lock when a million sessions have expired. Fills a libSQL
 * file with ROWS expired sessions (default 1,000,000) plus live ones, runs
 * maintenance runs until nothing is left, and prints the per-statement time
 * (median, p99, max) — each statement is one short write transaction.
 *   npm run bench:maintenance            ROWS=200000 npm run bench:maintenance
 */
import { loadavg } from 'node:os';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../src/db/open.js';
import { applyMigrations } from '../src/db/migrate.js';
import { runMaintenance } from '../src/services/maintenance.js';
import { removeDir, tempDir } from '../test/runtime/processes.js';

const rows = Number(process.env['ROWS'] ?? 1_000_000);
const dir = tempDir('bench-maint');
const { db, client } = await openDatabase(`file:${dir}/m.db`);
await applyMigrations(client);
const now = Date.now();
const old = now - 40 * 86_400_000;
await client.execute({
  sql: "INSERT INTO users (id, email, email_verified, roles, created_at, updated_at) VALUES ('u', 'u@example.com', 1, '[\"user\"]', ?, ?)",
  args: [now, now],
});
const t0 = performance.now();
for (let done = 0; done < rows; done += 100_000) {
  const n = Math.min(100_000, rows - done);
  await db.run(sql`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n})
    INSERT INTO sessions (id, user_id, chain_id, refresh_token_hash, refresh_token_lookup, expires_at, idle_expires_at, created_at, updated_at)
    SELECT 'x' || (${done} + i), 'u', 'c' || (${done} + i), 'h', 'l' || (${done} + i), ${old}, ${old}, ${old}, ${old} FROM s`);
  process.stdout.write(`\rmaintenance bench: filled ${done + n} expired sessions`);
}
await db.run(sql`INSERT INTO sessions (id, user_id, chain_id, refresh_token_hash, refresh_token_lookup, expires_at, idle_expires_at, created_at, updated_at)
  VALUES ('live', 'u', 'live', 'h', 'l-live', ${now + 86_400_000}, ${now + 86_400_000}, ${now}, ${now})`);
console.log(` in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const times: number[] = [];
const timed = new Proxy(db, {
  get(target, prop, receiver) {
    if (prop !== 'run') return Reflect.get(target, prop, receiver);
    return async (q: Parameters<typeof db.run>[0]) => {
      const s = performance.now();
      const r = await target.run(q);
      times.push(performance.now() - s);
      return r;
    };
  },
});
let runs = 0;
let deleted = 0;
const p0 = performance.now();
for (let n = -1; n !== 0; runs++) {
  n = await runMaintenance(timed, now);
  deleted += n;
}
const sorted = [...times].sort((a, b) => a - b);
const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!.toFixed(2);
const left = Number((await client.execute('SELECT COUNT(*) AS n FROM sessions')).rows[0]!['n']);
console.log(
  `maintenance bench: deleted ${deleted} rows in ${runs} runs, ${times.length} statements, ${((performance.now() - p0) / 1000).toFixed(1)} s; per statement median ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms; ${left} live row(s) kept (load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')})`,
);
client.close();
removeDir(dir);
