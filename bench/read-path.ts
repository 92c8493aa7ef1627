/**
 * `npm run bench:read-path`: the database read path against the floor of the
 * stack (issue #17, target ≥ 0.40). In one run, in-process through
 * `app.request` (no sockets), concurrency 16, libSQL file, rate limits off:
 * `GET /health/status` (no database) vs `GET /users/me` with a bearer access
 * token (session + user check, credentials, memberships) vs `GET /sessions`.
 * Rounds alternate; the ratio of medians is the figure to compare.
 *   BENCH_ROUNDS=5 BENCH_ROUND_MS=2000 npm run bench:read-path
 */
import { join } from 'node:path';
import { createAuthApi } from '../src/index.js';
import { createLogger } from '../src/log.js';
import { removeDir, tempDir } from '../test/runtime/processes.js';
import { benchEnv, signedInUser } from './lib/svc.js';
import { expectStatus, fmt, loadAverage, machine, measure, summary } from './lib/load.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const ROUND_MS = Number(process.env['BENCH_ROUND_MS'] ?? 2000);
const CONCURRENCY = 16;
const TARGET = 0.4;

async function main() {
  const dir = tempDir('bench-read');
  console.log(`read-path bench — ${machine()}, load average ${loadAverage()} (before)`);
  try {
    const api = await createAuthApi({ env: { ...benchEnv, DATABASE_URL: `file:${join(dir, 'read.db')}` }, logger: createLogger(() => {}) });
    const { token } = await signedInUser(api);
    const auth = { headers: { authorization: `Bearer ${token}` } };
    const cases: [string, () => Promise<void>][] = [
      ['GET /health/status', async () => expectStatus(await api.request('/health/status'))],
      ['GET /users/me (bearer)', async () => expectStatus(await api.request('/users/me', auth))],
      ['GET /sessions (bearer)', async () => expectStatus(await api.request('/sessions', auth))],
    ];
    for (const [, call] of cases) for (let i = 0; i < 300; i++) await call(); // warm-up (JIT, statement caches)
    const rps: number[][] = cases.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, [, call]] of cases.entries()) rps[i]!.push((await measure(call, CONCURRENCY, ROUND_MS)).rps);
    }
    const s = rps.map(summary);
    for (const [i, [label]] of cases.entries()) console.log(`${label.padEnd(24)} ${s[i]!.text}`);
    const ratio = (i: number) => s[i]!.median / s[0]!.median;
    console.log(`ratio /users/me ÷ /health/status: ${fmt(ratio(1), 3)} (target ≥ ${TARGET}) ${ratio(1) >= TARGET ? 'met' : 'NOT met'}`);
    console.log(`ratio /sessions ÷ /health/status: ${fmt(ratio(2), 3)}`);
    console.log(`${ROUNDS} rounds × ${ROUND_MS} ms, concurrency ${CONCURRENCY}; load average ${loadAverage()} (after)`);
    await api.close();
  } finally {
    removeDir(dir);
  }
}

await main();
