/**
 * The five conformance targets: how each runtime is
 * started on free loopback ports with a fresh database, and stopped. Every
 * target gets the same configuration (`conformanceEnv`), so one suite runs
 * unchanged against all of them over HTTP.
 */
import { appendFileSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  BIN,
  ROOT,
  freePort,
  removeDir,
  start as startProcess,
  startWranglerDev,
  tempDir,
  waitForHttp,
  type Spawned,
} from '../runtime/processes.js';

/**
 * Starts a server in its own process group and records the group in
 * CONFORMANCE_PGIDS_FILE, so scripts/conformance.mjs can stop it even when
 * vitest is killed before its teardown runs.
 */
function start(...args: Parameters<typeof startProcess>): Spawned {
  const [cmd] = args;
  // A missing binary would surface as an unhandled spawn error that kills vitest without a reason.
  if (cmd.startsWith('/') && !existsSync(cmd))
    throw new Error(`${basename(cmd)} is not installed at ${cmd} (npm ci installs it)`);
  const spawned = startProcess(...args);
  spawned.child.on('error', () => {
    /* reported by waitForHttp with the process output */
  });
  const file = process.env['CONFORMANCE_PGIDS_FILE'];
  if (file && spawned.child.pid) appendFileSync(file, `${spawned.child.pid}\n`);
  return spawned;
}

export const TARGETS = ['node-file', 'bun-file', 'deno-file', 'workerd-d1', 'workerd-sqld'] as const;
export type TargetName = (typeof TARGETS)[number];

export interface RunningTarget {
  base: string;
  env: Record<string, string>;
  /** The sqld URL the target stores in (workerd-sqld only), for the several-instances cases. */
  sqldUrl?: string;
  /** The wrangler persist directory (workerd-d1 only). */
  persistDir?: string;
  /** Where `wrangler dev` writes its debug log (workerd-d1 only): the D1 race reads its reload events. */
  wranglerLogDir?: string;
  output: () => string;
  stop: () => Promise<void>;
}

const BOOT_TIMEOUT_MS = 90_000;

/**
 * Starts `wrangler dev` on a shipped config with `env` as vars: with a
 * DATABASE_URL, `wrangler.sqld.example.toml` (the libSQL entry on sqld);
 * without, `wrangler.toml` (the D1 entry on its local D1 binding).
 */
export async function startWorkerd(
  dir: string,
  env: Record<string, string>,
  port: number,
  persistDir = join(dir, 'wrangler-state'),
): Promise<Spawned> {
  const config = env['DATABASE_URL'] ? 'wrangler.sqld.example.toml' : 'wrangler.toml';
  const { proc: worker } = await startWranglerDev({
    configs: [join(ROOT, config)],
    dir,
    port,
    persistDir,
    logDir: wranglerLogDir(dir, port),
    logLevel: 'warn',
    vars: env,
    launch: start,
  });
  await waitForHttp(`http://127.0.0.1:${port}/health/status`, worker, BOOT_TIMEOUT_MS);
  return worker;
}

export const wranglerLogDir = (dir: string, port: number) => join(dir, `wrangler-logs-${port}`);

/** Starts `src/node.ts` as its own process (the tsx loader, one process). */
export async function startNode(env: Record<string, string>, port: number): Promise<Spawned> {
  const node = start(process.execPath, [...BIN.tsxNode, 'src/node.ts'], {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
  });
  await waitForHttp(`http://127.0.0.1:${port}/health/status`, node, BOOT_TIMEOUT_MS);
  return node;
}

export async function startSqld(dir: string): Promise<{ sqld: Spawned; url: string }> {
  const port = await freePort();
  const sqld = start(
    BIN.sqld,
    ['--http-listen-addr', `127.0.0.1:${port}`, '--db-path', join(dir, 'sqld-data'), '--no-welcome'],
    { cwd: dir },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/health`, sqld, 30_000);
  return { sqld, url };
}

/**
 * Starts `target` with `envFor(base, databaseUrl)` as its configuration.
 * Throws with the runtime's own output when it cannot start.
 */
export async function startTarget(
  target: TargetName,
  envFor: (base: string, databaseUrl: string) => Record<string, string>,
): Promise<RunningTarget> {
  const dir = tempDir(`conformance-${target}`);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const procs: Spawned[] = [];
  const stop = async () => {
    for (const p of procs.reverse()) await p.stop();
    removeDir(dir);
  };
  const output = () => procs.map((p) => p.output()).join('\n');
  try {
    const fileUrl = `file:${join(dir, 'db', 'svc.db')}`;
    if (target === 'node-file') {
      const env = envFor(base, fileUrl);
      procs.push(await startNode(env, port));
      return { base, env, output, stop };
    }
    if (target === 'bun-file') {
      const env = envFor(base, fileUrl);
      const bun = start(BIN.bun, ['src/bun.ts'], { env: { ...env, PORT: String(port), HOST: '127.0.0.1' } });
      procs.push(bun);
      await waitForHttp(`${base}/health/status`, bun, BOOT_TIMEOUT_MS);
      return { base, env, output, stop };
    }
    if (target === 'deno-file') {
      const env = envFor(base, fileUrl);
      const deno = start(BIN.deno, ['run', '-A', '--sloppy-imports', 'src/deno.ts'], {
        env: {
          ...env,
          PORT: String(port),
          HOST: '127.0.0.1',
          DENO_NO_UPDATE_CHECK: '1',
          DENO_NO_PROMPT: '1',
          NO_COLOR: '1',
        },
      });
      procs.push(deno);
      await waitForHttp(`${base}/health/status`, deno, BOOT_TIMEOUT_MS);
      return { base, env, output, stop };
    }
    if (target === 'workerd-d1') {
      const { DATABASE_URL: _none, ...env } = envFor(base, '');
      const persistDir = join(dir, 'wrangler-state');
      procs.push(await startWorkerd(dir, env, port, persistDir));
      return { base, env, persistDir, wranglerLogDir: wranglerLogDir(dir, port), output, stop };
    }
    const { sqld, url } = await startSqld(dir);
    procs.push(sqld);
    const env = envFor(base, url);
    procs.push(await startWorkerd(dir, env, port));
    return { base, env, sqldUrl: url, output, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
