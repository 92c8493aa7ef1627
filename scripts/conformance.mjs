#!/usr/bin/env node
// `npm run test:conformance [target…]`: the black-box conformance suite
// (vitest.conformance.config.ts) once per target, CONFORMANCE_CONCURRENCY
// targets at a time (default 3: on 2 cores the servers wait on each other's
// I/O more than on CPU). Prints exactly one line per target —
// `conformance <target>: N passed, M failed` — plus, for a target whose
// runtime could not start, its one-line reason; the failed cases' names go to
// stderr after the summary. Exits 1 if any target failed. Logs: $CONFORMANCE_LOG_DIR
// (default a temporary directory, printed when something failed).
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const ALL = ['node-file', 'bun-file', 'deno-file', 'workerd-d1', 'workerd-sqld'];
const requested = process.argv.slice(2);
const unknown = requested.filter((t) => !ALL.includes(t));
if (unknown.length) {
  console.error(`test:conformance: unknown target ${unknown.join(', ')} (targets: ${ALL.join(', ')})`);
  process.exit(2);
}
const targets = requested.length ? requested : ALL;
const concurrency = Math.max(1, Number(process.env.CONFORMANCE_CONCURRENCY ?? 3));
// A target still running after this is stopped and counted as failed.
const targetTimeoutMs = Number(process.env.CONFORMANCE_TARGET_TIMEOUT_MS ?? 600_000);
const logDir = process.env.CONFORMANCE_LOG_DIR ?? mkdtempSync(join(tmpdir(), 'svc-conformance-'));
mkdirSync(logDir, { recursive: true });

const readGroups = (file) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .map(Number)
        .filter((n) => n > 1)
    : [];
function killGroups(pgids) {
  for (const g of pgids) {
    try {
      process.kill(-g, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}
/** Kill functions of the targets still running, for an interrupted run. */
const running = new Set();
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    for (const kill of running) kill();
    process.exit(130);
  });
}

/** Runs vitest for one target; resolves to its counts, failures and reason. */
function runTarget(target) {
  const report = join(logDir, `${target}.json`);
  const reasonFile = join(logDir, `${target}.reason`);
  const logFile = join(logDir, `${target}.log`);
  // The servers a target starts, one process group id a line (written by its global setup),
  // so a run that times out or is interrupted leaves no server behind.
  const groupsFile = join(logDir, `${target}.pgids`);
  rmSync(groupsFile, { force: true });
  rmSync(reasonFile, { force: true });
  rmSync(report, { force: true });
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      [
        join(ROOT, 'node_modules/vitest/vitest.mjs'),
        'run',
        '--config',
        'vitest.conformance.config.ts',
        '--reporter=json',
        `--outputFile=${report}`,
        '--reporter=default',
      ],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          CONFORMANCE_TARGET: target,
          CONFORMANCE_REASON_FILE: reasonFile,
          CONFORMANCE_PGIDS_FILE: groupsFile,
          NO_COLOR: '1',
          FORCE_COLOR: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true, // own process group: a timeout reaches the servers it started
      },
    );
    const logStream = createWriteStream(logFile);
    let log = '';
    const collect = (d) => {
      log += d;
      logStream.write(d);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const kill = () => killGroups([child.pid, ...readGroups(groupsFile)]);
    running.add(kill);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, targetTimeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      running.delete(kill);
      killGroups(readGroups(groupsFile)); // normally stopped by the teardown already
      logStream.end();
      const seconds = (Date.now() - started) / 1000;
      let passed = 0;
      let failed = 0;
      const failures = [];
      if (existsSync(report)) {
        const json = JSON.parse(readFileSync(report, 'utf8'));
        for (const file of json.testResults ?? []) {
          for (const t of file.assertionResults ?? []) {
            if (t.status === 'passed') passed++;
            else {
              failed++; // skipped or todo counts as failed: the suite never skips
              failures.push(`${t.fullName}: ${(t.failureMessages?.[0] ?? t.status).split('\n')[0]}`);
            }
          }
          if (file.status === 'failed' && !(file.assertionResults ?? []).length) {
            failed++;
            failures.push(`${file.name}: ${(file.message ?? 'failed to load').split('\n')[0]}`);
          }
        }
      }
      let reason = existsSync(reasonFile) ? readFileSync(reasonFile, 'utf8').trim() : null;
      if (timedOut) reason = `did not finish within ${targetTimeoutMs / 1000} s`;
      if ((code !== 0 || reason) && failed === 0) {
        failed = 1;
        reason ??= `vitest exited with ${code}: ${
          log
            .split('\n')
            .find((l) => /Error|error/.test(l))
            ?.trim() ?? 'see the log'
        }`;
      }
      done({ target, passed, failed, failures, reason, seconds, logFile });
    });
  });
}

// Longest first (workerd-sqld starts a second workerd and a Node instance; workerd-d1 runs its own race): started
// last, they used to run alone at the end while the short targets' slots stood idle. Lines still print in `targets` order.
const LONGEST_FIRST = ['workerd-sqld', 'workerd-d1', 'deno-file', 'node-file', 'bun-file'];
const queue = [...targets].sort((a, b) => LONGEST_FIRST.indexOf(a) - LONGEST_FIRST.indexOf(b));
const results = [];
const t0 = Date.now();
await Promise.all(
  Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
    while (queue.length) {
      const r = await runTarget(queue.shift());
      results.push(r);
    }
  }),
);
results.sort((a, b) => targets.indexOf(a.target) - targets.indexOf(b.target));
for (const r of results) {
  const tail = r.reason ? ` (${r.reason})` : '';
  console.log(`conformance ${r.target}: ${r.passed} passed, ${r.failed} failed${tail}`);
}
if (process.env.CONFORMANCE_TIMINGS) for (const r of results) console.error(`  ${r.target}: ${r.seconds.toFixed(1)} s`);
const failedTargets = results.filter((r) => r.failed > 0);
for (const r of failedTargets) {
  console.error(`\n${r.target} failures (log: ${r.logFile}):`);
  for (const f of r.failures.slice(0, 20)) console.error(`  ✗ ${f}`);
}
if (process.env.CONFORMANCE_TIMINGS) console.error(`conformance: ${((Date.now() - t0) / 1000).toFixed(1)} s in all`);
process.exit(failedTargets.length ? 1 : 0);
