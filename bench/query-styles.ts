/**
 * `npm run bench:query-styles`: how to run a hot query (issue #17 item 1),
 * measured on the access check (session joined with its user, libSQL file):
 * drizzle building the query per call, a drizzle prepared query with
 * placeholders (what the repositories use), and the same SQL string through
 * `client.execute` with args (no row mapping). Rounds alternate.
 */
import { eq, sql } from 'drizzle-orm';
import { wrapClient } from '../src/db/client.js';
import { sessions, users } from '../src/db/schema.js';
import { prepareClient } from '../test/helpers/make-app.js';
import { removeDir, tempDir } from '../test/runtime/processes.js';
import { fmt, loadAverage, machine, median } from './lib/load.js';

const N = Number(process.env['N'] ?? 5000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const dir = tempDir('bench-query');
const client = await prepareClient(`file:${dir}/q.db`);
const { db } = wrapClient(client, 'file');
const now = Date.now();
await client.execute({ sql: "INSERT INTO users (id, email, roles, created_at, updated_at) VALUES ('u', 'u@example.com', '[]', ?, ?)", args: [now, now] });
await client.execute({
  sql: "INSERT INTO sessions (id, user_id, chain_id, refresh_token_hash, refresh_token_lookup, expires_at, idle_expires_at, created_at, updated_at) VALUES ('s', 'u', 'c', 'h', 'l', ?, ?, ?, ?)",
  args: [now, now, now, now],
});
const joined = () => db.select({ session: sessions, user: users }).from(sessions).innerJoin(users, eq(users.id, sessions.userId));
const prepared = joined().where(eq(sessions.id, sql.placeholder('id'))).prepare();
const text = prepared.getQuery().sql;
const styles: [string, () => Promise<unknown>][] = [
  ['drizzle, built per call', () => joined().where(eq(sessions.id, 's'))],
  ['drizzle .prepare() + placeholder', () => prepared.get({ id: 's' })],
  ['SQL string + client.execute(args)', () => client.execute({ sql: text, args: ['s'] })],
];
const perCallUs: number[][] = styles.map(() => []);
for (const [, f] of styles) for (let i = 0; i < 500; i++) await f();
for (let r = 0; r < ROUNDS; r++) {
  for (const [i, [, f]] of styles.entries()) {
    const t0 = performance.now();
    for (let k = 0; k < N; k++) await f();
    perCallUs[i]!.push(((performance.now() - t0) * 1000) / N);
  }
}
console.log(`query styles — ${machine()}; load average ${loadAverage()}`);
for (const [i, [label]] of styles.entries()) console.log(`${label.padEnd(36)} median ${fmt(median(perCallUs[i]!), 1)} µs per call (rounds ${perCallUs[i]!.map((u) => fmt(u, 1)).join(', ')})`);
client.close();
removeDir(dir);
