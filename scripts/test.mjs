#!/usr/bin/env node
// `npm test`: every suite, always all of them, then one summary. The unit
// suite (vitest) runs with the typecheck and the lint (Biome: formatting and
// lint rules, biome.jsonc; seconds) beside it, then the conformance suite, then
// the browser suite: each of the last two fills both cores (run side by side
// they took 539 s, against about 480 s one after the other). In a
// phase the first suite streams its output and the others print theirs as one
// block when they end, so two suites never interleave lines. A failing suite
// never hides another: each runs, the summary lists all, and the exit code is 1
// if any failed. It brings its own browser (scripts/chromium.mjs) and fails,
// never skips, when it cannot.
// Each tool runs as `node <its JS entry>`: `npx` would add its own start (npm's
// CLI, reading the tree) to every suite.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { resolveChromium } from './chromium.mjs';

const ROOT = resolve(import.meta.dirname, '..');
/** A tool of node_modules, run by this Node; `shown` is what the header prints. */
const tool = (entry, args, shown) => ({
  cmd: process.execPath,
  args: [join(ROOT, 'node_modules', entry), ...args],
  shown,
});

const suites = {
  typecheck: { ...tool('typescript/bin/tsc', ['-p', 'tsconfig.json', '--noEmit'], 'tsc'), what: 'typecheck (tsc)' },
  lint: {
    ...tool('@biomejs/biome/bin/biome', ['ci', '--colors=off', '.'], 'biome'),
    what: 'format and lint (Biome; npm run format fixes)',
  },
  unit: { ...tool('vitest/vitest.mjs', ['run'], 'vitest'), what: 'unit, integration and runtime suites (vitest)' },
  conformance: {
    cmd: process.execPath,
    args: ['scripts/conformance.mjs'],
    shown: 'node',
    what: 'conformance (node-file, bun-file, deno-file, workerd-d1, workerd-sqld)',
  },
  e2e: {
    ...tool('vitest/vitest.mjs', ['run', '--config', 'vitest.e2e.config.ts'], 'vitest'),
    what: 'browser end-to-end (Chromium)',
  },
};

/** Phases run in order; the suites of one phase run at once. */
const PHASES = [['unit', 'typecheck', 'lint'], ['conformance'], ['e2e']];

const results = new Map();
const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;

/**
 * Runs one suite. `live` streams its output; otherwise the output is held and
 * printed as one block when it ends, so two suites never interleave lines.
 */
function run(name, env, live) {
  const { cmd, args, shown, what } = suites[name];
  const started = Date.now();
  console.log(
    `\n== ${name}: ${what}: ${shown} ${(shown === 'node' ? args : args.slice(1)).join(' ')}${live ? '' : ' (output when it ends)'}`,
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
