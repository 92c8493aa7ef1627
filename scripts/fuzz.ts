/**
 * `npm run fuzz`: the fuzz suites (test/fuzz) with a random seed and more
 * cases per route. Prints the seed first so a failure can be replayed:
 *   FUZZ_SEED=<seed> FUZZ_RUNS=<runs> npm run fuzz
 * FUZZ_RUNS defaults to 300 cases per route (the socket suite runs a tenth).
 */
import { spawnSync } from 'node:child_process';

const seed = process.env['FUZZ_SEED'] ?? String(Math.floor(Math.random() * 2 ** 31));
const runs = process.env['FUZZ_RUNS'] ?? '300';
console.log(`fuzz: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} (replay: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run fuzz)`);
const started = Date.now();
const r = spawnSync('npx', ['vitest', 'run', 'test/fuzz', '--testTimeout', '3600000', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, FUZZ_SEED: seed, FUZZ_RUNS: runs },
});
console.log(
  `fuzz: ${r.status === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(0)} s (FUZZ_SEED=${seed} FUZZ_RUNS=${runs})`,
);
process.exit(r.status ?? 1);
