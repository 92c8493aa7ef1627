/**
 * `npm run bench:scale`: cost of the hot paths as the data grows (an index
 * must keep them flat). Fills one libSQL file per size with SIZES sessions (default 10k,
 * 100k, 1M; random ids and refresh lookups, as in production), min(100k,
 * sessions) users and one auth event per session, by bulk
 * `INSERT … SELECT` over a recursive CTE. Then, in interleaved rounds over the
 * sizes, times sequential `POST /refresh` (rotation) and `GET /users/me` of a
 * user signed in among them, and prints p50/p99 per size and the largest/smallest
 * p50 ratio (target ≤ 1.5×). Latency here is one request at a time, in-process
 * (`app.request`), rate limits off.
 *   npm run bench:scale          SIZES=10000,100000 ROUNDS=5 npm run bench:scale
 */
import { join } from 'node:path';
import { createAuthApi, type AuthApi } from '../src/index.js';
import { createLogger } from '../src/log.js';
import { removeDir, tempDir } from '../test/runtime/processes.js';
import { expectStatus, fmt, loadAverage, machine, pct } from './lib/load.js';
import { benchEnv, signedInUser } from './lib/svc.js';

const SIZES = (process.env['SIZES'] ?? '10000,100000,1000000').split(',').map(Number);
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const REFRESHES = Number(process.env['REFRESHES'] ?? 60);
const READS = Number(process.env['READS'] ?? 300);
const CHUNK = 100_000;
const TARGET = 1.5;

/** Bulk rows in chunks (one statement per chunk): users, sessions spread over them, one event per session. */
async function fill(api: AuthApi, sessionCount: number) {
  const { client } = api.deps.database;
  const userCount = Math.min(100_000, sessionCount);
  const now = Date.now();
  const future = now + 30 * 86_400_000;
  const insert = async (total: number, sql: (n: number, offset: number) => string) => {
    for (let done = 0; done < total; done += CHUNK) await client.execute(sql(Math.min(CHUNK, total - done), done));
  };
  const seq = (n: number) => `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n})`;
  // Random keys into live indexes cost a page miss per row: drop the secondary indexes of the
  // bulk tables, fill, then rebuild them from their own definitions (a sorted build is much faster).
  const { rows: indexes } = await client.execute(
    "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('sessions', 'auth_events') AND sql IS NOT NULL",
  );
  for (const ix of indexes) await client.execute(`DROP INDEX "${String(ix['name'])}"`);
  await insert(
    userCount,
    (n, o) => `${seq(n)} INSERT INTO users (id, email, roles, verified, email_verified, created_at, updated_at)
    SELECT 'u' || (${o} + i), 'u' || (${o} + i) || '@scale.test', '["user"]', 1, 1, ${now}, ${now} FROM s`,
  );
  await insert(
    sessionCount,
    (
      n,
      o,
    ) => `${seq(n)} INSERT INTO sessions (id, user_id, chain_id, refresh_token_hash, refresh_token_lookup, user_agent, ip_address, expires_at, idle_expires_at, created_at, updated_at)
    SELECT lower(hex(randomblob(12))), 'u' || (((${o} + i) % ${userCount}) + 1), lower(hex(randomblob(12))), '$2a$04$scale', lower(hex(randomblob(32))), 'bench', '203.0.113.9',
      ${future}, ${future}, ${now} - (${o} + i), ${now} FROM s`,
  );
  await insert(
    sessionCount,
    (n, o) => `${seq(n)} INSERT INTO auth_events (id, type, user_id, ip_address, user_agent, metadata, created_at)
    SELECT lower(hex(randomblob(12))), 'refresh_token_success', 'u' || (((${o} + i) % ${userCount}) + 1), '203.0.113.9', 'bench', NULL, ${now} - (${o} + i) FROM s`,
  );
  for (const ix of indexes) await client.execute(String(ix['sql']));
  await client.execute('ANALYZE');
  return userCount;
}

interface Size {
  sessions: number;
  api: AuthApi;
  token: string;
  refreshToken: string;
  refreshMs: number[];
  meMs: number[];
}

async function timeRound(s: Size) {
  for (let i = 0; i < REFRESHES; i++) {
    const t0 = performance.now();
    const res = await s.api.request('/refresh', {
      method: 'POST',
      headers: { authorization: `Bearer ${s.refreshToken}` },
    });
    const body = (await res.json()) as { token: string; refreshToken: string };
    s.refreshMs.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`refresh answered ${res.status}`);
    s.refreshToken = body.refreshToken;
    s.token = body.token;
  }
  const auth = { headers: { authorization: `Bearer ${s.token}` } };
  for (let i = 0; i < READS; i++) {
    const t0 = performance.now();
    await expectStatus(await s.api.request('/users/me', auth));
    s.meMs.push(performance.now() - t0);
  }
}

async function main() {
  const started = performance.now();
  const dir = tempDir('bench-scale');
  console.log(`scale bench — ${machine()}, load average ${loadAverage()} (before)`);
  const sizes: Size[] = [];
  try {
    for (const sessions of SIZES) {
      const t0 = performance.now();
      const api = await createAuthApi({
        env: { ...benchEnv, DATABASE_URL: `file:${join(dir, `scale-${sessions}.db`)}` },
        logger: createLogger(() => {}),
      });
      const users = await fill(api, sessions);
      const { token, refreshToken } = await signedInUser(api);
      sizes.push({ sessions, api, token, refreshToken, refreshMs: [], meMs: [] });
      console.log(
        `filled ${sessions} sessions, ${users} users, ${sessions} auth events in ${fmt((performance.now() - t0) / 1000, 1)} s`,
      );
    }
    for (const s of sizes)
      for (let i = 0; i < 50; i++)
        // warm-up
        await expectStatus(await s.api.request('/users/me', { headers: { authorization: `Bearer ${s.token}` } }));
    for (let r = 0; r < ROUNDS; r++) for (const s of sizes) await timeRound(s);
    const line = (label: string, ms: number[]) => {
      const sorted = [...ms].sort((a, b) => a - b);
      return `${label} p50 ${fmt(pct(sorted, 50), 2)} ms, p99 ${fmt(pct(sorted, 99), 2)} ms`;
    };
    for (const s of sizes)
      console.log(
        `${String(s.sessions).padStart(8)} sessions: ${line('refresh', s.refreshMs)}; ${line('/users/me', s.meMs)}`,
      );
    const p50 = (ms: number[]) =>
      pct(
        [...ms].sort((a, b) => a - b),
        50,
      );
    const p99 = (ms: number[]) =>
      pct(
        [...ms].sort((a, b) => a - b),
        99,
      );
    const [small, large] = [sizes[0]!, sizes[sizes.length - 1]!];
    for (const [label, pick] of [
      ['refresh', (s: Size) => s.refreshMs],
      ['/users/me', (s: Size) => s.meMs],
    ] as const) {
      const r50 = p50(pick(large)) / p50(pick(small));
      const r99 = p99(pick(large)) / p99(pick(small));
      console.log(
        `ratio ${label} ${large.sessions}/${small.sessions}: p50 ${fmt(r50, 2)}× (target ≤ ${TARGET}× ${r50 <= TARGET ? 'met' : 'NOT met'}), p99 ${fmt(r99, 2)}×`,
      );
    }
    console.log(
      `${ROUNDS} interleaved rounds of ${REFRESHES} refreshes + ${READS} reads per size; load average ${loadAverage()} (after); total ${fmt((performance.now() - started) / 1000, 1)} s`,
    );
  } finally {
    for (const s of sizes) await s.api.close();
    removeDir(dir);
  }
}

await main();
