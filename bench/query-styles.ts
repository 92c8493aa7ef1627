/**
 * `npm run bench:query-styles`: how to run a hot query, measured
 * on the access check (session joined with its user, libSQL file), through
 * both embedded clients on the same file:
 * - `@libsql/client`'s file driver (prepares the statement on every call) and
 *   our embedded client (`src/db/driver/embedded-client.ts`, statement cache), each
 *   with drizzle building the query per call, a drizzle prepared query with
 *   placeholders (what the repositories use), and the same SQL string through
 *   `client.execute` with args (no drizzle row mapping);
 * - the floor: a cached native `libsql` statement, raw rows, no result set
 *   (`all()`, and `get()`: what the embedded client uses for `LIMIT 1`).
 * Rounds alternate; CPU µs per call is the figure that does not depend on the
 * share of the cores the process got.
 */
import { eq, sql } from 'drizzle-orm';
import Database from 'libsql';
import { wrapClient } from '../src/db/client.js';
import { createEmbeddedClient } from '../src/db/driver/embedded-client.js';
import { sessions, users } from '../src/db/schema.js';
import { prepareClient } from '../test/helpers/make-app.js';
import { removeDir, tempDir } from '../test/runtime/processes.js';
import { fmt, loadAverage, machine, median } from './lib/load.js';

const N = Number(process.env['N'] ?? 5000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const dir = tempDir('bench-query');
const url = `file:${dir}/q.db`;
const libsqlClient = await prepareClient(url);
const now = Date.now();
await libsqlClient.execute({
  sql: "INSERT INTO users (id, email, roles, created_at, updated_at) VALUES ('u', 'u@example.com', '[]', ?, ?)",
  args: [now, now],
});
await libsqlClient.execute({
  sql: "INSERT INTO sessions (id, user_id, chain_id, refresh_token_hash, refresh_token_lookup, expires_at, idle_expires_at, created_at, updated_at) VALUES ('s', 'u', 'c', 'h', 'l', ?, ?, ?, ?)",
  args: [now, now, now, now],
});
const embeddedClient = createEmbeddedClient(url, {
  connectionSetup: ['PRAGMA busy_timeout = 5000', 'PRAGMA synchronous = NORMAL', 'PRAGMA foreign_keys = ON'],
});

type Style = [string, () => Promise<unknown> | unknown];
function stylesFor(name: string, client: typeof libsqlClient): Style[] {
  const { db } = wrapClient(client, 'file');
  const joined = () =>
    db.select({ session: sessions, user: users }).from(sessions).innerJoin(users, eq(users.id, sessions.userId));
  // As src/repositories/sessions.ts builds it (`.limit(1)`: one row at most,
  // read in one native call by the embedded client).
  const prepared = joined()
    .where(eq(sessions.id, sql.placeholder('id')))
    .limit(1)
    .prepare();
  const text = prepared.getQuery().sql;
  return [
    [`${name}: drizzle, built per call`, () => joined().where(eq(sessions.id, 's')).limit(1)],
    [`${name}: drizzle .prepare() + placeholder`, () => prepared.get({ id: 's' })],
    [`${name}: SQL string + client.execute(args)`, () => client.execute({ sql: text, args: ['s', 1] })],
  ];
}
const libsqlStyles = stylesFor('@libsql/client', libsqlClient);
const embeddedStyles = stylesFor('embedded', embeddedClient);
const native = new Database(`${dir}/q.db`);
const nativeSql = wrapClient(embeddedClient, 'file')
  .db.select({ session: sessions, user: users })
  .from(sessions)
  .innerJoin(users, eq(users.id, sessions.userId))
  .where(eq(sessions.id, sql.placeholder('id')))
  .limit(1)
  .prepare()
  .getQuery().sql;
const [nativeAll, nativeGet] = [native.prepare(nativeSql).raw(true), native.prepare(nativeSql).raw(true)];
const styles: Style[] = [
  ...libsqlStyles,
  ...embeddedStyles,
  ['floor: cached native statement, raw .all()', () => nativeAll.all(['s', 1])],
  ['floor: cached native statement, raw .get()', () => nativeGet.get(['s', 1])],
];

const wallUs: number[][] = styles.map(() => []);
const cpuUs: number[][] = styles.map(() => []);
for (const [, f] of styles) for (let i = 0; i < 500; i++) await f();
for (let r = 0; r < ROUNDS; r++) {
  for (const [i, [, f]] of styles.entries()) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    for (let k = 0; k < N; k++) await f();
    const c = process.cpuUsage(c0);
    wallUs[i]!.push(((performance.now() - t0) * 1000) / N);
    cpuUs[i]!.push((c.user + c.system) / N);
  }
}
console.log(`query styles — ${machine()}; load average ${loadAverage()}`);
for (const [i, [label]] of styles.entries()) {
  console.log(
    `${label.padEnd(52)} CPU ${fmt(median(cpuUs[i]!), 1).padStart(6)} µs per call, wall ${fmt(median(wallUs[i]!), 1).padStart(6)} µs (rounds ${wallUs[i]!.map((u) => fmt(u, 1)).join(', ')})`,
  );
}
const ratio = (a: number, b: number) => fmt(median(cpuUs[a]!) / median(cpuUs[b]!), 2);
console.log(
  `@libsql/client ÷ embedded, CPU per call: drizzle prepared ${ratio(1, 4)}×, client.execute ${ratio(2, 5)}×`,
);
console.log(`${ROUNDS} rounds × ${N} calls; load average ${loadAverage()} (after)`);
libsqlClient.close();
embeddedClient.close();
native.close();
removeDir(dir);
