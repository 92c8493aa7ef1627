/**
 * CPU per email-OTP sign-in and per refresh, split by route and by process
 * (where the CPU of a sign-in goes). The same two processes as `npm run bench:peers` — the API
 * (`src/node.ts`) and an app with `svcAdapter` (`bench/lib/svc-app.ts`) over
 * loopback, login floor off — each preloaded with `bench/lib/cpu-report.mjs`
 * so this process can read their `process.cpuUsage()` over IPC between phases.
 * Each round drives N existing users through the sign-in one phase at a time
 * (all `/auth/login`, then all code requests, then the outbox reads, then all
 * verifies; concurrency C), then N refreshes on C chains; the CPU delta of each
 * process over each phase, divided by the operations, is its cost. CPU time
 * does not depend on how much of the shared cores the processes got.
 *
 *   node --import tsx bench/profile-sign-in.ts
 *   PROFILE_DIR=/tmp/prof node --import tsx bench/profile-sign-in.ts   # adds --cpu-prof to both servers
 *   node bench/lib/top-frames.mjs /tmp/prof/api-*.cpuprofile
 *
 * Env: `USERS` (N, 64), `CONCURRENCY` (C, 8), `ROUNDS` (5), `WARMUP` (2 rounds), `BASELINE_DIR` (a checkout
 * of another commit with node_modules: its API and app run in the same rounds, alternating).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort, removeDir, ROOT, tempDir } from '../test/runtime/processes.js';
import { CookieJar } from './lib/http-client.js';
import { client, code, listening, ok, origin, svcSignUp } from './lib/peer-flows.js';
import { fmt, loadAverage, machine, median } from './lib/load.js';
import { benchEnv } from './lib/svc.js';

const USERS = Number(process.env['USERS'] ?? 64);
const CONCURRENCY = Number(process.env['CONCURRENCY'] ?? 8);
const ROUNDS = Number(process.env['ROUNDS'] ?? 5);
const WARMUP = Number(process.env['WARMUP'] ?? 2);
const PROFILE_DIR = process.env['PROFILE_DIR'];
const BASELINE_DIR = process.env['BASELINE_DIR'];

interface Cpu {
  user: number;
  system: number;
}

interface Server {
  name: string;
  child: ChildProcess;
  output: () => string;
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

function spawnServer(name: string, root: string, entry: string, env: Record<string, string>): Server {
  const args = [
    '--import',
    pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href,
    '--import',
    pathToFileURL(join(ROOT, 'bench/lib/cpu-report.mjs')).href,
  ];
  if (PROFILE_DIR) args.push('--cpu-prof', `--cpu-prof-dir=${join(PROFILE_DIR, name)}`);
  const child = spawn(process.execPath, [...args, join(root, entry)], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  return {
    name,
    child,
    output: () => out,
    cpu: () =>
      new Promise<number>((res) => {
        child.once('message', (m) => res((m as { cpu: Cpu }).cpu.user + (m as { cpu: Cpu }).cpu.system));
        child.send('cpu');
      }),
    async stop() {
      if (child.exitCode !== null) return;
      child.send('exit');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs `fn` over `items` with `CONCURRENCY` workers. */
async function each<T>(items: T[], fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

interface Stack {
  label: string;
  api: Server;
  app: Server;
  appUrl: string;
  users: string[];
  chains: CookieJar[];
}

async function startStack(label: string, root: string, dir: string): Promise<Stack> {
  const apiPort = await freePort();
  const api = spawnServer(`api-${label}`, root, 'src/node.ts', {
    ...benchEnv,
    DATABASE_URL: `file:${join(dir, `${label}.db`)}`,
    PORT: String(apiPort),
    HOST: '127.0.0.1',
    DELIVERY_MODE: 'none',
    NODE_ENV: 'development',
    LOGIN_METHODS: 'passkey,magic_link,email_otp',
    LOGIN_RESPONSE_FLOOR_MS: '0',
  });
  const apiUrl = await listening(api, api.name);
  const app = spawnServer(`app-${label}`, root, 'bench/lib/svc-app.ts', { API_URL: apiUrl, PORT: '0' });
  const appUrl = await listening(app, app.name);
  const stack: Stack = { label, api, app, appUrl, users: [], chains: [] };
  // Accounts: N sign-in users and C refresh chains, all signed up through the adapter.
  const signUp = (email: string) => svcSignUp(appUrl, email);
  stack.users = Array.from({ length: USERS }, (_, i) => `signin-${label}-${i}@bench.test`);
  await each(stack.users, async (e) => void (await signUp(e)));
  const chainEmails = Array.from({ length: CONCURRENCY }, (_, i) => `chain-${label}-${i}@bench.test`);
  stack.chains = await Promise.all(chainEmails.map(signUp));
  return stack;
}

const PHASES = ['login', 'generate', 'outbox', 'verify', 'refresh'] as const;
type Phase = (typeof PHASES)[number];
type Sample = Record<Phase, { api: number; app: number; ops: number; ms: number }>;

async function round(s: Stack): Promise<Sample> {
  const jars = s.users.map(() => new CookieJar());
  const codes: string[] = [];
  const sample = {} as Sample;
  const phase = async (name: Phase, ops: number, run: () => Promise<void>) => {
    const [a0, p0] = await Promise.all([s.api.cpu(), s.app.cpu()]);
    const t0 = performance.now();
    await run();
    const ms = performance.now() - t0;
    const [a1, p1] = await Promise.all([s.api.cpu(), s.app.cpu()]);
    sample[name] = { api: a1 - a0, app: p1 - p0, ops, ms };
  };
  const post = (path: string, jar: CookieJar, json: unknown) =>
    client.call(`${s.appUrl}${path}`, { method: 'POST', headers: { ...origin, cookie: jar.header() }, json });
  await phase('login', s.users.length, () =>
    each(s.users, async (email, i) => {
      const r = await post('/auth/login', jars[i]!, { identifier: email });
      ok(r, 'login');
      jars[i]!.update(r.setCookies);
    }),
  );
  await phase('generate', s.users.length, async () => {
    await each(s.users, async (_, i) => {
      const r = await post('/auth/otp/generate-login-email-otp', jars[i]!, {});
      ok(r, 'generate-login-email-otp');
      jars[i]!.update(r.setCookies);
    });
    await new Promise((r) => setTimeout(r, 20)); // the adapter delivers after answering: count that here
  });
  await phase('outbox', s.users.length, () =>
    each(s.users, async (email, i) => {
      codes[i] = await code(s.appUrl, email);
    }),
  );
  await phase('verify', s.users.length, () =>
    each(s.users, async (_, i) => {
      const r = await post('/auth/otp/verify-login-email-otp', jars[i]!, { verificationToken: codes[i] });
      ok(r, 'verify-login-email-otp');
      if (!jars[i]!.update(r.setCookies).has('svc-access')) throw new Error('no session cookie');
    }),
  );
  const perChain = Math.ceil(s.users.length / s.chains.length);
  await phase('refresh', perChain * s.chains.length, () =>
    each(s.chains, async (jar) => {
      for (let k = 0; k < perChain; k++) {
        const r = await client.call(`${s.appUrl}/auth/refresh`, {
          method: 'POST',
          headers: { ...origin, cookie: jar.header() },
        });
        ok(r, 'refresh');
        jar.update(r.setCookies);
      }
    }),
  );
  return sample;
}

function report(label: string, samples: Sample[]) {
  const us = (p: Phase, side: 'api' | 'app') => median(samples.map((s) => s[p][side] / s[p].ops));
  const rows = PHASES.map((p) => ({ p, api: us(p, 'api'), app: us(p, 'app') }));
  const signIn = rows.filter((r) => r.p !== 'refresh');
  const sum = (side: 'api' | 'app') => signIn.reduce((a, r) => a + r[side], 0);
  console.log(
    `\n${label}: CPU µs per operation (median of ${samples.length} rounds; ${USERS} users, concurrency ${CONCURRENCY})`,
  );
  console.log(`  ${'phase'.padEnd(44)} ${'API'.padStart(7)} ${'app'.padStart(7)} ${'both'.padStart(7)}`);
  const names: Record<Phase, string> = {
    login: 'POST /auth/login',
    generate: 'POST /auth/otp/generate-login-email-otp (+ delivery)',
    outbox: 'GET /bench/otp (outbox read, bench only)',
    verify: 'POST /auth/otp/verify-login-email-otp',
    refresh: 'POST /auth/refresh',
  };
  for (const r of rows) {
    if (r.p === 'refresh')
      console.log(
        `  ${'sign-in total (the four above)'.padEnd(44)} ${fmt(sum('api')).padStart(7)} ${fmt(sum('app')).padStart(7)} ${fmt(sum('api') + sum('app')).padStart(7)}`,
      );
    console.log(
      `  ${names[r.p].slice(0, 44).padEnd(44)} ${fmt(r.api).padStart(7)} ${fmt(r.app).padStart(7)} ${fmt(r.api + r.app).padStart(7)}`,
    );
  }
  return {
    signInApi: sum('api'),
    signInApp: sum('app'),
    refreshApi: us('refresh', 'api'),
    refreshApp: us('refresh', 'app'),
  };
}

async function main() {
  console.log(`profile-sign-in — ${machine()}; load average ${loadAverage()} (before)`);
  const dir = tempDir('prof-signin');
  const stacks: Stack[] = [];
  try {
    stacks.push(await startStack('tree', ROOT, dir));
    if (BASELINE_DIR) stacks.push(await startStack('baseline', resolve(BASELINE_DIR), dir));
    const samples = stacks.map(() => [] as Sample[]);
    for (let r = 0; r < WARMUP + ROUNDS; r++) {
      const order = r % 2 === 0 ? stacks.map((_, i) => i) : stacks.map((_, i) => i).reverse();
      for (const i of order) {
        const sample = await round(stacks[i]!);
        if (r >= WARMUP) samples[i]!.push(sample);
      }
    }
    const results = stacks.map((s, i) =>
      report(s.label === 'tree' ? 'this tree' : `baseline (${BASELINE_DIR})`, samples[i]!),
    );
    if (results.length === 2) {
      const [t, b] = results as [ReturnType<typeof report>, ReturnType<typeof report>];
      console.log(
        `\nbaseline ÷ this tree, CPU per sign-in: API ${fmt(b.signInApi / t.signInApi, 2)}×, app ${fmt(b.signInApp / t.signInApp, 2)}×, both ${fmt((b.signInApi + b.signInApp) / (t.signInApi + t.signInApp), 2)}×`,
      );
      console.log(
        `baseline ÷ this tree, CPU per refresh: API ${fmt(b.refreshApi / t.refreshApi, 2)}×, app ${fmt(b.refreshApp / t.refreshApp, 2)}×, both ${fmt((b.refreshApi + b.refreshApp) / (t.refreshApi + t.refreshApp), 2)}×`,
      );
    }
  } finally {
    for (const s of stacks) await Promise.all([s.app.stop(), s.api.stop()]);
    client.close();
    removeDir(dir);
  }
  console.log(`\nload average ${loadAverage()} (after)`);
}

await main();
