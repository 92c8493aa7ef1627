/**
 * `npm run bench:bcrypt`: what a refresh's bcrypt does to the rest of the API
 * on Node, inline vs on the entry's worker pool (common/node/bcrypt-pool.ts),
 * side by side in one run. Each side is its own API process (`startNodeApi`,
 * bench/lib/node-api.ts) on its own database file with 4 sessions; a round
 * runs 4 refresh chains (`POST /refresh`, rotating) and, at the same time, 2
 * readers of `GET /health/status`, and reports the refresh rate and the
 * readers' rate and latency. Rounds alternate between the sides; medians.
 *
 *   npm run bench:bcrypt                 # REFRESH_TOKEN_BCRYPT_COST 4 (the default) and 10
 *   COSTS=4 ROUNDS=5 ROUND_MS=4000 npm run bench:bcrypt
 */
import { join } from 'node:path';
import { createAuthApi } from '../src/index.js';
import { createLogger } from '../src/log.js';
import { BIN, removeDir, start, tempDir, type Spawned } from '../test/runtime/processes.js';
import { listening } from './lib/peer-flows.js';
import { fmt, loadAverage, machine, median, pct } from './lib/load.js';
import { benchEnv, signedInUser } from './lib/svc.js';

const COSTS = (process.env['COSTS'] ?? '4,10').split(',').map(Number);
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const ROUND_MS = Number(process.env['ROUND_MS'] ?? 3000);
const CHAINS = 4;
const READERS = 2;

interface Side {
  label: string;
  proc: Spawned;
  base: string;
  dir: string;
  chains: { refreshToken: string }[];
}

async function startSide(label: string, bcrypt: 'inline' | 'pool', cost: number): Promise<Side> {
  const dir = tempDir(`bcrypt-${bcrypt}`);
  const env = { ...benchEnv, DATABASE_URL: `file:${join(dir, 'svc.db')}`, REFRESH_TOKEN_BCRYPT_COST: String(cost) };
  // The sessions are written by a second instance on the same file before the API process opens it.
  const seed = await createAuthApi({ env, logger: createLogger(() => {}) });
  const chains = await Promise.all(Array.from({ length: CHAINS }, () => signedInUser(seed)));
  await seed.close();
  const proc = start(process.execPath, [...BIN.tsxNode, 'bench/lib/node-api.ts'], {
    env: { ...env, PORT: '0', BCRYPT: bcrypt },
  });
  return { label, proc, base: await listening(proc, label), dir, chains };
}

async function round(side: Side): Promise<{ refreshPerS: number; readsPerS: number; latMs: number[] }> {
  const lat: number[] = [];
  let refreshes = 0;
  const end = performance.now() + ROUND_MS;
  const refresher = async (chain: { refreshToken: string }) => {
    while (performance.now() < end) {
      const res = await fetch(`${side.base}/refresh`, {
        method: 'POST',
        headers: { authorization: `Bearer ${chain.refreshToken}` },
      });
      const body = (await res.json()) as { refreshToken?: string };
      if (res.status !== 200 || !body.refreshToken)
        throw new Error(`${side.label} refresh: ${res.status} ${JSON.stringify(body)}`);
      chain.refreshToken = body.refreshToken;
      refreshes++;
    }
  };
  const reader = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const res = await fetch(`${side.base}/health/status`);
      await res.text();
      if (res.status !== 200) throw new Error(`${side.label} /health/status: ${res.status}`);
      lat.push(performance.now() - t0);
    }
  };
  const t0 = performance.now();
  await Promise.all([...side.chains.map(refresher), ...Array.from({ length: READERS }, reader)]);
  const secs = (performance.now() - t0) / 1000;
  return { refreshPerS: refreshes / secs, readsPerS: lat.length / secs, latMs: lat.sort((a, b) => a - b) };
}

console.log(
  `bench:bcrypt — ${machine()}; ${ROUNDS} alternating rounds × ${ROUND_MS} ms; ${CHAINS} refresh chains + ${READERS} /health/status readers; load average ${loadAverage()} (before)`,
);
for (const cost of COSTS) {
  const sides = [await startSide('inline bcrypt', 'inline', cost), await startSide('worker pool', 'pool', cost)];
  try {
    const results = sides.map(() => [] as Awaited<ReturnType<typeof round>>[]);
    for (const side of sides) await round(side); // warm-up (JIT, caches)
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) results[i]!.push(await round(sides[i]!));
    }
    console.log(`\nREFRESH_TOKEN_BCRYPT_COST=${cost}`);
    const p50 = (rs: (typeof results)[number]) => median(rs.map((x) => pct(x.latMs, 50)));
    const p99 = (rs: (typeof results)[number]) => median(rs.map((x) => pct(x.latMs, 99)));
    for (const [i, side] of sides.entries()) {
      const rs = results[i]!;
      console.log(
        `  ${side.label.padEnd(14)} refresh ${fmt(median(rs.map((x) => x.refreshPerS)), 1)}/s; /health/status ${fmt(median(rs.map((x) => x.readsPerS)))}/s, p50 ${fmt(p50(rs), 1)} ms, p99 ${fmt(p99(rs), 1)} ms`,
      );
    }
    const [inline, pool] = results;
    console.log(
      `  pool ÷ inline: refresh ${fmt(median(pool!.map((x) => x.refreshPerS)) / median(inline!.map((x) => x.refreshPerS)), 2)}×, reads ${fmt(median(pool!.map((x) => x.readsPerS)) / median(inline!.map((x) => x.readsPerS)), 2)}×, read p99 ${fmt(p99(pool!) / p99(inline!), 3)}×`,
    );
  } finally {
    for (const side of sides) {
      await side.proc.stop();
      removeDir(side.dir);
    }
  }
}
console.log(`\nload average ${loadAverage()} (after)`);
