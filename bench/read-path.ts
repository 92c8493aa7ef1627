/**
 * `npm run bench:read-path`: the database read path against the floor of the
 * stack (target ≥ 0.40). In one run, in-process through
 * `app.request` (no sockets), concurrency 16, libSQL file, rate limits off:
 * `GET /health/status` (no database) vs `GET /users/me` with a bearer access
 * token (session + user check, credentials, memberships) vs `GET /sessions`.
 * Rounds alternate; the ratio of medians is the figure to compare.
 * `BASELINE_DIR=<a checkout of an older commit>` adds that tree's API to the
 * same rounds (its /users/me and /sessions), so a change is measured side by
 * side with what it replaced even on a busy machine.
 *   BENCH_ROUNDS=5 BENCH_ROUND_MS=2000 npm run bench:read-path
 *   git archive <commit> | tar -x -C /tmp/base && ln -s $PWD/node_modules /tmp/base/ && BASELINE_DIR=/tmp/base npm run bench:read-path
 */
import { join } from 'node:path';
import { createAuthApi, type AuthApi } from '../src/index.js';
import { createLogger } from '../src/log.js';
import { removeDir, tempDir } from '../test/runtime/processes.js';
import { benchEnv, signedInUser } from './lib/svc.js';
import { expectStatus, fmt, loadAverage, machine, measure, median, summary } from './lib/load.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const ROUND_MS = Number(process.env['BENCH_ROUND_MS'] ?? 2000);
const CONCURRENCY = 16;
const TARGET = 0.4;

async function main() {
  const dir = tempDir('bench-read');
  console.log(`read-path bench — ${machine()}, load average ${loadAverage()} (before)`);
  try {
    const api = await createAuthApi({
      env: { ...benchEnv, DATABASE_URL: `file:${join(dir, 'read.db')}` },
      logger: createLogger(() => {}),
    });
    const { token } = await signedInUser(api);
    const auth = { headers: { authorization: `Bearer ${token}` } };
    const cases: [string, () => Promise<void>][] = [
      ['GET /health/status', async () => expectStatus(await api.request('/health/status'))],
      ['GET /users/me (bearer)', async () => expectStatus(await api.request('/users/me', auth))],
      ['GET /sessions (bearer)', async () => expectStatus(await api.request('/sessions', auth))],
    ];
    const baselineDir = process.env['BASELINE_DIR'];
    if (baselineDir) {
      const mod = (await import(join(baselineDir, 'src/index.ts'))) as { createAuthApi: typeof createAuthApi };
      const base: AuthApi = await mod.createAuthApi({
        env: { ...benchEnv, DATABASE_URL: `file:${join(dir, 'base.db')}` },
        logger: createLogger(() => {}),
      });
      const baseAuth = { headers: { authorization: `Bearer ${(await signedInUser(base)).token}` } };
      cases.push(
        ['baseline GET /users/me', async () => expectStatus(await base.request('/users/me', baseAuth))],
        ['baseline GET /sessions', async () => expectStatus(await base.request('/sessions', baseAuth))],
      );
    }
    for (const [, call] of cases) for (let i = 0; i < 300; i++) await call(); // warm-up (JIT, statement caches)
    const rps: number[][] = cases.map(() => []);
    const cpuUs: number[][] = cases.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, [, call]] of cases.entries()) {
        const m = await measure(call, CONCURRENCY, ROUND_MS);
        rps[i]!.push(m.rps);
        cpuUs[i]!.push(m.cpuUsPerReq);
      }
    }
    const s = rps.map(summary);
    const cpu = cpuUs.map(median);
    for (const [i, [label]] of cases.entries())
      console.log(`${label.padEnd(26)} ${s[i]!.text}; CPU ${fmt(cpu[i]!)} µs/request (median)`);
    const ratio = (i: number) => s[i]!.median / s[0]!.median;
    console.log(
      `ratio /users/me ÷ /health/status: ${fmt(ratio(1), 3)} (target ≥ ${TARGET}) ${ratio(1) >= TARGET ? 'met' : 'NOT met'}`,
    );
    console.log(`ratio /sessions ÷ /health/status: ${fmt(ratio(2), 3)}`);
    console.log(
      `by CPU per request (/health/status ÷ route, contention-independent): /users/me ${fmt(cpu[0]! / cpu[1]!, 3)}, /sessions ${fmt(cpu[0]! / cpu[2]!, 3)}`,
    );
    if (baselineDir) {
      console.log(
        `this tree ÷ baseline (${baselineDir}) req/s: /users/me ${fmt(s[1]!.median / s[3]!.median, 2)}×, /sessions ${fmt(s[2]!.median / s[4]!.median, 2)}×`,
      );
      console.log(
        `CPU per request, baseline ÷ this tree: /users/me ${fmt(cpu[3]! / cpu[1]!, 2)}×, /sessions ${fmt(cpu[4]! / cpu[2]!, 2)}×`,
      );
    }
    console.log(`${ROUNDS} rounds × ${ROUND_MS} ms, concurrency ${CONCURRENCY}; load average ${loadAverage()} (after)`);
    await api.close();
  } finally {
    removeDir(dir);
  }
}

await main();
