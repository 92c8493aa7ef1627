/**
 * `npm run bench`: the figures behind the README "Performance" section.
 * - access-token verification per second (verifyApiToken, RS256, one core);
 * - refresh rotation through the real app (`app.request('/refresh')`) on a
 *   libSQL file: latency p50/p99 and throughput, at the default bcrypt cost and at 10;
 * - one bcrypt compare at costs 4/8/10/12.
 * Numbers are noisy on a shared machine: compare figures within one run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compare, hash } from 'bcrypt-ts';
import { DEFAULT_BCRYPT_COST } from '../src/config/env.js';
import { verifyApiToken } from '../src/crypto/jwt.js';
import { createAuthApi, type AuthApi } from '../src/index.js';
import { createLogger } from '../src/log.js';
import { signedInUser } from './lib/svc.js';

const ISSUER = 'http://bench.test';
const baseEnv = {
  ISSUER,
  API_SERVICE_TOKEN: 'bench-service-token-0123456789abcdef-0123456789',
  APP_NAME: 'svc bench',
  DEFAULT_ROLES: 'user',
  AVAILABLE_ROLES: 'user,admin',
  ACCESS_TOKEN_TTL: '15m',
  REFRESH_TOKEN_TTL: '1d',
  RATE_LIMIT: '1000000',
  DELAY_AFTER: '0',
  RPID: 'localhost',
  ORIGINS: 'http://localhost:3000',
};

const fmt = (n: number, digits = 1) => n.toFixed(digits);
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function boot(dir: string, cost: number): Promise<AuthApi> {
  return createAuthApi({
    env: { ...baseEnv, DATABASE_URL: `file:${join(dir, `bench-${cost}.db`)}`, REFRESH_TOKEN_BCRYPT_COST: String(cost) },
    logger: createLogger(() => {}),
  });
}

async function refreshOnce(api: AuthApi, refreshToken: string): Promise<string> {
  const res = await api.request('/refresh', { method: 'POST', headers: { authorization: `Bearer ${refreshToken}` } });
  if (res.status !== 200) throw new Error(`refresh answered ${res.status}`);
  return ((await res.json()) as { refreshToken: string }).refreshToken;
}

async function benchVerify(api: AuthApi) {
  const { token } = await signedInUser(api);
  const opts = () => ({ issuer: ISSUER, nowMs: Date.now() });
  for (let i = 0; i < 200; i++) await verifyApiToken(api.deps.keys, token, opts()); // warm-up
  const durationMs = 2000;
  const started = performance.now();
  let n = 0;
  while (performance.now() - started < durationMs) {
    if (!(await verifyApiToken(api.deps.keys, token, opts()))) throw new Error('verification failed');
    n++;
  }
  const elapsed = performance.now() - started;
  console.log(
    `access-token verification (verifyApiToken, RS256): ${Math.round((n / elapsed) * 1000)} /s  (${fmt((elapsed * 1000) / n)} µs each, ${n} in ${fmt(elapsed / 1000, 2)} s)`,
  );
}

async function benchRefresh(api: AuthApi, cost: number, sequential: number, concurrency: number, perChain: number) {
  // Sequential: one chain, latency of each rotation.
  let token = (await signedInUser(api)).refreshToken;
  for (let i = 0; i < 5; i++) token = await refreshOnce(api, token); // warm-up
  const latencies: number[] = [];
  const seqStart = performance.now();
  for (let i = 0; i < sequential; i++) {
    const t0 = performance.now();
    token = await refreshOnce(api, token);
    latencies.push(performance.now() - t0);
  }
  const seqElapsed = performance.now() - seqStart;
  latencies.sort((a, b) => a - b);
  // Concurrent: independent chains in flight at once (one process, one connection).
  const chains = await Promise.all(
    Array.from({ length: concurrency }, () => signedInUser(api).then((r) => r.refreshToken)),
  );
  const conStart = performance.now();
  await Promise.all(
    chains.map(async (t) => {
      for (let i = 0; i < perChain; i++) t = await refreshOnce(api, t);
    }),
  );
  const conElapsed = performance.now() - conStart;
  console.log(
    `refresh rotation, libSQL file, bcrypt cost ${cost}: p50 ${fmt(percentile(latencies, 50), 2)} ms, p99 ${fmt(percentile(latencies, 99), 2)} ms, ` +
      `sequential ${fmt((sequential / seqElapsed) * 1000)} /s (${sequential} rotations); ` +
      `${concurrency} concurrent chains ${fmt(((concurrency * perChain) / conElapsed) * 1000)} /s (${concurrency * perChain} rotations)`,
  );
}

async function benchBcrypt() {
  const token = 'A'.repeat(43);
  const parts: string[] = [];
  for (const [cost, runs] of [
    [4, 20],
    [8, 5],
    [10, 3],
    [12, 2],
  ] as const) {
    const stored = await hash(token, cost);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      if (!(await compare(token, stored))) throw new Error('compare failed');
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    parts.push(`cost ${cost}: ${fmt(percentile(times, 50), 1)} ms`);
  }
  console.log(`bcrypt-ts compare (median): ${parts.join(', ')}`);
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const started = performance.now();
  console.log(
    `svc bench — Node ${process.version}, ${cpus().length} CPU(s) (${cpus()[0]?.model.trim()}), load average ${loadavg()
      .map((l) => fmt(l, 2))
      .join(' ')}`,
  );
  try {
    const api = await boot(dir, DEFAULT_BCRYPT_COST);
    await benchVerify(api);
    await benchRefresh(api, DEFAULT_BCRYPT_COST, 300, 8, 25);
    api.close();
    const api10 = await boot(dir, 10);
    await benchRefresh(api10, 10, 20, 4, 3);
    api10.close();
    await benchBcrypt();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`done in ${fmt((performance.now() - started) / 1000)} s`);
}

await main();
