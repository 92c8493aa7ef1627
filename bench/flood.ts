/**
 * `npm run flood`: the refresh flood that wedged sqld. One sqld,
 * three API processes, FLOOD_N (default 500) concurrent refreshes of one token.
 *   npm run flood                      FLOOD_N=1000 SQLD_BIN=/path/to/sqld npm run flood
 *   FLOOD_NO_DEADLINES=1 npm run flood (the API without the deadline and the call timeout)
 * Exits non-zero if a request got no answer, a 5xx other than 503 + Retry-After,
 * the chain did not end with one live head, or sqld could not write afterwards.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { BIN, removeDir, tempDir } from '../test/runtime/processes.js';
import { startCluster } from './soak/cluster.js';
import { runFlood } from './soak/flood.js';

const n = Number(process.env['FLOOD_N'] ?? 500);
const sqldBin = process.env['SQLD_BIN'] ?? BIN.sqld;
const version = execFileSync(sqldBin, ['--version'], { encoding: 'utf8' }).trim();
const dir = tempDir('flood');
console.log(`flood: ${version}; 3 API processes; ${n} concurrent POST /refresh with one token`);
// FLOOD_NO_DEADLINES=1: the API without its deadlines (no request deadline, no
// database call timeout), to show the hang they prevent.
const before = process.env['FLOOD_NO_DEADLINES'] === '1';
const cluster = await startCluster(dir, 3, before ? { REQUEST_DEADLINE_MS: '0', DB_TIMEOUT_MS: '0' } : {});
try {
  const r = await runFlood(cluster, n);
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  console.log(
    `flood: ${r.requests} requests in ${(r.wallMs / 1000).toFixed(1)} s; p50 ${r.p50Ms.toFixed(0)} ms, p99 ${r.p99Ms.toFixed(0)} ms, max ${r.maxMs.toFixed(0)} ms (load average ${load})`,
  );
  for (const [k, v] of Object.entries(r.byStatus).sort((a, b) => b[1] - a[1]))
    console.log(`  ${String(v).padStart(6)}  ${k}`);
  console.log(`  live heads of the chain afterwards: ${r.liveHeads}`);
  console.log(
    `  sqld write afterwards: ${r.writeAfterMs === null ? 'FAILED (no write within 30 s)' : `${r.writeAfterMs.toFixed(0)} ms`}`,
  );
  // The flood sends no Idempotency-Key, so every loser is reuse and the chain is revoked (0 live heads); at most 1.
  const ok = r.unanswered === 0 && r.bad5xx === 0 && r.liveHeads >= 0 && r.liveHeads <= 1 && r.writeAfterMs !== null;
  console.log(ok ? 'flood: passed' : 'flood: FAILED');
  process.exitCode = ok ? 0 : 1;
} finally {
  await cluster.stopApis();
  await cluster.stopSqld();
  removeDir(dir);
}
