#!/usr/bin/env node
// `npm test`: typecheck, then every vitest suite (API, adapters, runtimes on
// workerd/Bun/Deno, parity), the conformance suite on its five targets
// (scripts/conformance.mjs), then the browser end-to-end suite. It brings its
// own browser (scripts/chromium.mjs) and fails, never skips, when it cannot.
import { spawnSync } from 'node:child_process';
import { resolveChromium } from './chromium.mjs';

let browser;
try {
  browser = resolveChromium();
} catch (err) {
  console.error(`npm test: ${err.message}`);
  process.exit(1);
}
console.log(`npm test: browser suite uses ${browser.version} from ${browser.source} (${browser.path})`);
const e2eEnv = { ...process.env, ...browser.env, CHROMIUM_PATH: browser.path };

const steps = [
  ['typecheck', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit'], process.env],
  ['unit, integration and runtime suites', 'npx', ['vitest', 'run'], process.env],
  ['conformance suite (node-file, bun-file, deno-file, workerd-d1, workerd-sqld)', process.execPath, ['scripts/conformance.mjs'], process.env],
  ['browser end-to-end suite', 'npx', ['vitest', 'run', '--config', 'vitest.e2e.config.ts'], e2eEnv],
];

const total = Date.now();
for (const [name, cmd, args, env] of steps) {
  const started = Date.now();
  console.log(`\n== ${name}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env });
  console.log(`== ${name}: ${r.status === 0 ? 'ok' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (r.status !== 0) process.exit(r.status ?? 1);
}
console.log(`\nnpm test: all suites passed in ${((Date.now() - total) / 1000).toFixed(0)} s`);
