/**
 * `npm run bench:cold-start`: the API worker's first request after `wrangler
 * dev` boots (workerd, local D1), RUNS times (default 10), and the bundle size
 * wrangler deploys. One warm-up boot applies the migrations first, so every
 * measured boot reuses a migrated D1 and times the isolate's own start: script
 * evaluation, `createAuthApi` (config, keys, the migration check) and the
 * request. Prints median, min and max, and the load average.
 *   npm run bench:cold-start           RUNS=20 npm run bench:cold-start
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import {
  BIN,
  ROOT,
  freePort,
  removeDir,
  smokeEnv,
  startWranglerDev,
  tempDir,
  wranglerEnv,
} from '../test/runtime/processes.js';

const runs = Number(process.env['RUNS'] ?? 10);
const dir = tempDir('bench-cold');
const logDir = join(dir, 'logs');

async function bundleSize(): Promise<{ bytes: number; gzipBytes: number }> {
  const out = join(dir, 'bundle');
  await promisify(execFile)(
    process.execPath,
    [BIN.wrangler, 'deploy', '--dry-run', '--minify', '--outdir', out, '--config', join(ROOT, 'wrangler.toml')],
    {
      cwd: ROOT,
      env: { ...process.env, ...wranglerEnv(logDir) },
    },
  );
  const code = readFileSync(join(out, 'worker.js'));
  return { bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
}

/** Boots wrangler dev, waits until it listens, then times one request. */
async function firstRequestMs(): Promise<number> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { DATABASE_URL: _unused, ...env } = smokeEnv(base, 'unused');
  const { proc: worker } = await startWranglerDev({
    configs: [join(ROOT, 'wrangler.toml')],
    dir,
    port,
    logDir,
    logLevel: 'info',
    vars: env,
  });
  try {
    const deadline = Date.now() + 60_000;
    while (!/Ready on/.test(worker.output())) {
      if (Date.now() > deadline) throw new Error(`wrangler dev did not boot:\n${worker.output()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const t0 = performance.now();
    const res = await fetch(`${base}/.well-known/jwks.json`);
    await res.arrayBuffer();
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`first request answered ${res.status}:\n${worker.output()}`);
    return ms;
  } finally {
    await worker.stop();
  }
}

try {
  const size = await bundleSize();
  console.log(`cold start: API worker ${size.bytes} B minified, ${size.gzipBytes} B gzip`);
  await firstRequestMs(); // warm-up: migrates the local D1
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    times.push(await firstRequestMs());
    process.stdout.write(`\rcold start: ${i + 1}/${runs} boots`);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  console.log(
    `\ncold start: first request after wrangler dev boots, median ${median.toFixed(0)} ms, min ${times[0]!.toFixed(0)} ms, max ${times.at(-1)!.toFixed(0)} ms over ${runs} boots (load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
} finally {
  removeDir(dir);
}
