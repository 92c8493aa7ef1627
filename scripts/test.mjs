#!/usr/bin/env node
// `npm test`: typecheck, then every vitest suite (API, adapters, runtimes on
// workerd/Bun, parity), then the browser end-to-end suite when it exists.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const steps = [
  ['typecheck', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']],
  ['unit, integration and runtime suites', 'npx', ['vitest', 'run']],
];
if (existsSync('vitest.e2e.config.ts')) steps.push(['browser end-to-end suite', 'npx', ['vitest', 'run', '--config', 'vitest.e2e.config.ts']]);

for (const [name, cmd, args] of steps) {
  const started = Date.now();
  console.log(`\n== ${name}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: process.env });
  console.log(`== ${name}: ${r.status === 0 ? 'ok' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (r.status !== 0) process.exit(r.status ?? 1);
}
