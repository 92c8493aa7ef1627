#!/usr/bin/env node
// `npm test`: every suite, always all of them, then one summary. The typecheck
// and the lint (Biome: formatting and lint rules, biome.jsonc; seconds) run
// beside the conformance suite (one is CPU, the other mostly waits on its
// servers); the unit suite and the browser suite run alone, since each fills
// both cores. A failing suite never hides another: each runs, the summary
// lists all, and the exit code is 1 if any failed. It brings its own browser
// (scripts/chromium.mjs) and fails, never skips, when it cannot.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolveChromium } from './chromium.mjs';

const suites = {
  typecheck: { cmd: 'npx', args: ['tsc', '-p', 'tsconfig.json', '--noEmit'], what: 'typecheck (tsc)' },
  lint: {
    cmd: 'npx',
    args: ['biome', 'ci', '--colors=off', '.'],
    what: 'format and lint (Biome; npm run format fixes)',
  },
  unit: { cmd: 'npx', args: ['vitest', 'run'], what: 'unit, integration and runtime suites (vitest)' },
  conformance: {
    cmd: process.execPath,
    args: ['scripts/conformance.mjs'],
    what: 'conformance (node-file, bun-file, deno-file, workerd-d1, workerd-sqld)',
  },
  e2e: {
    cmd: 'npx',
    args: ['vitest', 'run', '--config', 'vitest.e2e.config.ts'],
    what: 'browser end-to-end (Chromium)',
  },
};

/** Phases run in order; the suites of one phase run at once. */
const PHASES = [['unit'], ['conformance', 'typecheck', 'lint'], ['e2e']];

const results = new Map();
const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;

/**
 * Runs one suite. `live` streams its output; otherwise the output is held and
 * printed as one block when it ends, so two suites never interleave lines.
 */
function run(name, env, live) {
  const { cmd, args, what } = suites[name];
  const started = Date.now();
  console.log(
    `\n== ${name}: ${what}: ${cmd === process.execPath ? 'node' : cmd} ${args.join(' ')}${live ? '' : ' (output when it ends)'}`,
  );
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'], env });
    const held = [];
    if (!live) {
      child.stdout.on('data', (d) => held.push(d));
      child.stderr.on('data', (d) => held.push(d));
    }
    const finish = (code, error) => {
      const ms = Date.now() - started;
      if (held.length) process.stdout.write(`\n== ${name}: output\n${Buffer.concat(held).toString()}`);
      if (error) console.log(`== ${name}: could not start: ${error.message}`);
      results.set(name, { ok: code === 0, ms });
      console.log(`== ${name}: ${code === 0 ? 'ok' : 'FAILED'} in ${seconds(ms)}`);
      resolve();
    };
    child.on('error', (err) => finish(1, err));
    child.on('close', (code) => finish(code ?? 1));
  });
}

const total = Date.now();
const loadAtStart = loadavg()[0];
let browserEnv = null;
try {
  const browser = resolveChromium();
  console.log(`npm test: browser suite uses ${browser.version} from ${browser.source} (${browser.path})`);
  browserEnv = { ...process.env, ...browser.env, CHROMIUM_PATH: browser.path };
} catch (err) {
  console.error(`npm test: no browser for the end-to-end suite: ${err.message}`);
}

for (const phase of PHASES) {
  await Promise.all(
    phase.map((name, i) => {
      if (name === 'e2e' && !browserEnv) {
        results.set(name, { ok: false, ms: 0, note: 'no browser (see above)' });
        return undefined;
      }
      // The first suite of a phase streams; the others hold their output.
      return run(name, name === 'e2e' ? browserEnv : process.env, i === 0);
    }),
  );
}

const failed = [...results].filter(([, r]) => !r.ok).map(([n]) => n);
console.log(
  `\nnpm test summary (${seconds(Date.now() - total)} in all; load average ${loadAtStart.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at the end):`,
);
for (const name of Object.keys(suites)) {
  const r = results.get(name);
  console.log(
    `  ${r.ok ? 'ok    ' : 'FAILED'}  ${name.padEnd(12)} ${seconds(r.ms).padStart(6)}  ${r.note ?? suites[name].what}`,
  );
}
if (failed.length) {
  console.log(
    `npm test: ${failed.length} suite(s) failed: ${failed.join(', ')} (each suite's own output above names the failing cases)`,
  );
  process.exit(1);
}
console.log('npm test: all suites passed');
