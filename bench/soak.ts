/**
 * `npm run soak`: reliability under faults. Three API processes on
 * one sqld behind the Hono adapter, a mixed native-app workload, kill -9 of a
 * random API process every few seconds, then the invariants.
 *   npm run soak                       (120 s, 16 users, a kill every ~8 s)
 *   SOAK_SECONDS=600 SOAK_USERS=32 SOAK_SEED=7 npm run soak
 *   SOAK_FLOOD=0 npm run soak           (skip the closing flood of 500 concurrent refreshes of one token)
 * The API runs its shipped defaults (refresh retries only with the rotation's own Idempotency-Key).
 * Exits non-zero when an invariant fails or a user who only retried was signed out.
 */
import { loadavg } from 'node:os';
import { runSoak } from './soak/run.js';

const num = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const seed = num('SOAK_SEED', Math.floor(Math.random() * 1e9));
const report = await runSoak({
  seconds: num('SOAK_SECONDS', 120),
  users: num('SOAK_USERS', 16),
  apis: num('SOAK_APIS', 3),
  killEveryMs: num('SOAK_KILL_EVERY_MS', 8000),
  floodRequests: num('SOAK_FLOOD', 500),
  seed,
  logFile: process.env['SOAK_LOG_FILE'],
  progress: (line) => console.log(line),
});
const load = loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');
console.log(
  `\nsoak: ${report.requests} requests in ${report.seconds} s, ${report.kills} kills, p50 ${report.p50Ms.toFixed(1)} ms, p99 ${report.p99Ms.toFixed(1)} ms (load average ${load}; replay with SOAK_SEED=${seed})`,
);
for (const [status, n] of Object.entries(report.byStatus).sort((a, b) => b[1] - a[1]))
  console.log(`  ${String(n).padStart(7)}  ${status}`);
console.log(`  users signed out who only retried: ${report.wronglySignedOut}`);
console.log(
  `  sign-outs after a deliberate double send of one refresh: ${report.raceSignOuts} (the client kept the superseded answer, or the two collided)`,
);
console.log(
  `  deliberate double sends answered with two different successors: ${report.doubleSuccesses} (the second was a keyed retry; otherwise the adapter's dedup, contract §5.7, answered both with one rotation)`,
);
for (const line of report.adapterErrors.slice(0, 5)) console.log(`  adapter: ${line.slice(0, 300)}`);
for (const inv of report.invariants) console.log(`  ${inv.ok ? 'ok  ' : 'FAIL'} ${inv.name}: ${inv.detail}`);
const failed = report.wronglySignedOut > 0 || report.invariants.some((i) => !i.ok);
console.log(failed ? 'soak: FAILED' : 'soak: passed');
process.exit(failed ? 1 : 0);
