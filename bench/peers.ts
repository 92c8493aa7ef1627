/**
 * `npm run bench:peers`: svc side by side with the peer a user would pick
 * instead — Better Auth (bench/peers/package.json, with its emailOTP plugin,
 * on Hono + a libSQL file) — in one run, on Node and on Bun.
 *
 * Every server runs in its own process: svc as an API process plus an app
 * process (Hono + `svcAdapter`, loopback HTTP between them); Better Auth as one
 * process (bench/peers/better-auth-server.mjs). One load generator (this
 * process) drives both: the fixed-request reads (a no-auth ceiling route, the
 * guarded route, "who am I") through bench/lib/loadgen.ts (raw sockets,
 * keep-alive, 32 connections, in a worker thread; non-2xx answers are counted
 * apart and invalidate the round), the flows that carry per-request cookies
 * (sign-in, refresh) through the `node:http` client. On Node the svc app
 * reaches its API through `nodeUpstreamFetch` (svc-auth/node);
 * `COMPARE_UPSTREAM=1` adds a second svc app on Node's global fetch and an
 * svc-vs-svc "who am I" line. Rounds alternate svc /
 * Better Auth per case, and each line prints the median req/s of each with the
 * spread of the rounds and the ratio svc / Better Auth against its target.
 * On first run the peer is installed with `npm ci --prefix bench/peers`
 * (npm registry only). `RUNTIMES=node`, `BENCH_ROUNDS`, `BENCH_ROUND_MS`,
 * `BENCH_SETTLE_MS` (an unmeasured lead-in before every round, 300 ms);
 * svc's login response floor is off unless `LOGIN_RESPONSE_FLOOR_MS` is set.
 *
 * `BENCH_RUNS=N` (default 1, the output above unchanged) repeats the whole
 * comparison N times, each run with fresh processes and databases; every line
 * then also prints the CPU per operation of each side, and a summary per
 * runtime gives each run's ratio, their median judged against the target
 * (bench/lib/peer-runs.ts `TARGETS`) and the median CPU per op. The load
 * average is printed at the start and the end of each run.
 *
 * On Node, svc's API and app run compiled JavaScript, built by tsc before the first run (bench/lib/node-build.ts),
 * as the package ships and as Better Auth runs; `NODE_SVC=tsx` runs svc's TypeScript through tsx instead.
 *
 * Every server process inherits this process's environment: `MIMALLOC_PURGE_DELAY=1000 npm run bench:peers`
 * runs every Bun process of both sides with that allocator setting (docs/deploying.md), and the header says so.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  BIN,
  ROOT,
  freePort,
  removeDir,
  start,
  tempDir,
  waitForHttp,
  type Spawned,
} from '../test/runtime/processes.js';
import { fmt, loadAverage, machine } from './lib/load.js';
import { reportLine } from './lib/peer-report.js';
import { createLoadGenerator } from './lib/loadgen.js';
import { measureCases, type Case } from './lib/peer-rounds.js';
import { nodeRunner, nodeSvcMode } from './lib/node-build.js';
import { BENCH_APP_ORIGIN, benchEnv } from './lib/svc.js';
import { formatSummary, summarizeRuns, targetOf, type LineRun, type Runtime } from './lib/peer-runs.js';
import {
  baSignIn,
  client,
  listening,
  ok,
  origin,
  pool,
  svcContinueWithEmail,
  svcSignIn,
  svcSignUp,
} from './lib/peer-flows.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const ROUND_MS = Number(process.env['BENCH_ROUND_MS'] ?? 2000);
/** Unmeasured lead-in of the same case and side before every measured round (0: none). */
const SETTLE_MS = Number(process.env['BENCH_SETTLE_MS'] ?? 300);
const RUNTIMES = (process.env['RUNTIMES'] ?? 'node,bun').split(',') as Runtime[];
/** Whole comparisons, each with fresh processes and databases; the verdict is the median of their ratios. */
const RUNS = Math.max(1, Number(process.env['BENCH_RUNS'] ?? 1));
const READ_CONCURRENCY = 32;
const FLOW_CONCURRENCY = 8;
const PEERS = join(ROOT, 'bench/peers');

function installPeer() {
  if (existsSync(join(PEERS, 'node_modules/better-auth/package.json'))) return;
  console.log('installing the peer: npm ci --prefix bench/peers (first run only)');
  execFileSync('npm', ['ci', '--prefix', PEERS, '--no-audit', '--no-fund'], { stdio: 'inherit' });
}

const gen = createLoadGenerator();

async function runtimeRun(runtime: Runtime, dir: string): Promise<LineRun[]> {
  const exec = runtime === 'node' ? process.execPath : BIN.bun;
  const ts = runtime === 'node' ? nodeRunner(ROOT) : (file: string) => [file];
  const apiPort = await freePort();
  const procs: Spawned[] = [];
  try {
    const apiEnv = {
      ...benchEnv,
      DATABASE_URL: `file:${join(dir, `svc-${runtime}.db`)}`,
      PORT: String(apiPort),
      HOST: '127.0.0.1',
      DELIVERY_MODE: 'none',
      NODE_ENV: 'development',
      LOGIN_METHODS: 'passkey,magic_link,email_otp',
      // The anti-enumeration floor (250 ms on /login and the code request by default) makes a sign-in
      // take ≥ 500 ms by design; Better Auth has none, so the machinery is compared without it.
      LOGIN_RESPONSE_FLOOR_MS: process.env['LOGIN_RESPONSE_FLOOR_MS'] ?? '0',
    };
    const api = start(exec, ts(join(ROOT, runtime === 'node' ? 'src/node.ts' : 'src/bun.ts')), { env: apiEnv });
    procs.push(api);
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    await waitForHttp(`${apiUrl}/health/status`, api, 60_000);
    const appProc = start(exec, ts(join(ROOT, 'bench/lib/svc-app.ts')), { env: { API_URL: apiUrl, PORT: '0' } });
    procs.push(appProc);
    const baProc = start(exec, [join(PEERS, 'better-auth-server.mjs')], {
      cwd: PEERS,
      env: { DATABASE_FILE: join(dir, `ba-${runtime}.db`), PORT: '0', BASE_URL: BENCH_APP_ORIGIN },
    });
    procs.push(baProc);
    // "Who am I" with the API's work free: a second app whose API is bench/lib/canned-api.mjs, replaying the
    // real API's first answer to every later request (the adapter and both hops paid as for real).
    const cannedProc = start(exec, [join(ROOT, 'bench/lib/canned-api.mjs')], { env: { API_URL: apiUrl } });
    procs.push(cannedProc);
    const canned = await listening(cannedProc, 'canned API');
    const floorProc = start(exec, ts(join(ROOT, 'bench/lib/svc-app.ts')), { env: { API_URL: canned, PORT: '0' } });
    procs.push(floorProc);
    const [app, ba] = [await listening(appProc, 'svc app'), await listening(baProc, 'Better Auth')];
    const floorApp = await listening(floorProc, 'svc app (canned API)');
    // One process: an app with the API built inside it (bench/lib/svc-app.ts EMBED_API=1), its own database.
    const embedProc = start(exec, ts(join(ROOT, 'bench/lib/svc-app.ts')), {
      env: { ...apiEnv, DATABASE_URL: `file:${join(dir, `svc-embedded-${runtime}.db`)}`, PORT: '0', EMBED_API: '1' },
    });
    procs.push(embedProc);
    const embedApp = await listening(embedProc, 'svc app (API embedded)');
    // COMPARE_UPSTREAM=1 (Node): a second svc app on Node's global fetch, for an svc-vs-svc "who am I" line.
    const compare = runtime === 'node' && process.env['COMPARE_UPSTREAM'] === '1';
    let appGlobal = '';
    let globalPid: number | undefined;
    if (compare) {
      const p = start(exec, ts(join(ROOT, 'bench/lib/svc-app.ts')), {
        env: { API_URL: apiUrl, PORT: '0', UPSTREAM_FETCH: 'global' },
      });
      procs.push(p);
      globalPid = p.child.pid;
      appGlobal = await listening(p, 'svc app (global fetch)');
    }

    // Accounts: one reader, one per concurrent sign-in worker, one refresh chain per worker.
    const n = FLOW_CONCURRENCY;
    const emails = (p: string) => Array.from({ length: n }, (_, i) => `${p}-${runtime}-${i}@bench.test`);
    const svcReader = await svcSignUp(app, `reader-${runtime}@bench.test`);
    const embedReader = await svcSignUp(embedApp, `reader-${runtime}@bench.test`);
    const baReader = await baSignIn(ba, `reader-${runtime}@bench.test`);
    const svcUsers = emails('svc-signin');
    for (const e of svcUsers) await svcSignUp(app, e);
    const baUsers = emails('ba-signin');
    for (const e of baUsers) await baSignIn(ba, e);
    const svcChains = await Promise.all(emails('svc-chain').map((e) => svcSignUp(app, e)));
    const baChains = await Promise.all(emails('ba-chain').map((e) => baSignIn(ba, e)));

    // svc's operation costs CPU in both its processes (the app and the API behind it); Better Auth's in its one.
    const pids = { svc: [api.child.pid, appProc.child.pid], ba: [baProc.child.pid] };
    // Better Auth's side of every "who am I" line: its session read without the cookie cache.
    const baGetSession = { base: ba, path: '/api/auth/get-session?disableCookieCache=true', cookie: baReader.header() };
    const cases: Case[] = [
      {
        key: 'ceiling',
        label:
          'ceiling: the same server with no auth (GET /bench/ping, {"ok":true}) — what a guarded route can at best reach',
        target: null,
        concurrency: READ_CONCURRENCY,
        svc: { base: app, path: '/bench/ping' },
        ba: { base: ba, path: '/bench/ping' },
      },
      {
        key: 'guarded',
        label: 'guarded app route: svc requireAuth vs BA getSession (cookie cache on)',
        target: targetOf('guarded', runtime),
        concurrency: READ_CONCURRENCY,
        svc: { base: app, path: '/guarded', cookie: svcReader.header() },
        ba: { base: ba, path: '/guarded', cookie: baReader.header() },
      },
      {
        key: 'hop',
        label:
          'the hop alone: svc app → API GET /health/status (no auth, no database) vs BA get-session (no cookie cache) — what who am I can at best reach through two processes',
        target: null,
        concurrency: READ_CONCURRENCY,
        svc: { base: app, path: '/bench/hop' },
        ba: baGetSession,
      },
      {
        key: 'me',
        label: 'who am I: svc adapter GET /auth/users/me (app → API) vs BA GET /api/auth/get-session (no cookie cache)',
        target: targetOf('me', runtime),
        concurrency: READ_CONCURRENCY,
        svc: { base: app, path: '/auth/users/me', cookie: svcReader.header() },
        ba: baGetSession,
      },
      {
        key: 'me-api-free',
        label:
          "who am I with the API's work free: the same adapter route through an app whose API replays one recorded answer (bench/lib/canned-api.mjs) vs BA get-session — what who am I can at best reach, whatever the API does",
        target: null,
        concurrency: READ_CONCURRENCY,
        svc: { base: floorApp, path: '/auth/users/me', cookie: svcReader.header() },
        ba: baGetSession,
        pids: { svc: [cannedProc.child.pid, floorProc.child.pid], ba: [baProc.child.pid] },
      },
      {
        key: 'me-embedded',
        label:
          "who am I with the API in the app's process: the same adapter route, the adapter's fetch calling createAuthApi's app directly (one process, no hop; docs/deploying.md) vs BA get-session",
        target: null,
        concurrency: READ_CONCURRENCY,
        svc: { base: embedApp, path: '/auth/users/me', cookie: embedReader.header() },
        ba: baGetSession,
        pids: { svc: [embedProc.child.pid], ba: [baProc.child.pid] },
      },
      ...(compare
        ? [
            {
              key: 'me-upstream' as const,
              label:
                "who am I, svc alone: the app on nodeUpstreamFetch vs the same app on Node's global fetch (same API process)",
              names: ['svc, nodeUpstreamFetch', 'svc, global fetch'] as [string, string],
              target: null,
              concurrency: READ_CONCURRENCY,
              svc: { base: app, path: '/auth/users/me', cookie: svcReader.header() },
              ba: { base: appGlobal, path: '/auth/users/me', cookie: svcReader.header() },
              pids: { svc: pids.svc, ba: [api.child.pid, globalPid] },
            },
          ]
        : []),
      {
        key: 'sign-in',
        label: `email-OTP sign-in end to end (request code, verify, session), concurrency ${n}`,
        target: targetOf('sign-in', runtime),
        concurrency: n,
        svc: pool(svcUsers, (e) => svcSignIn(app, e)),
        ba: pool(baUsers, async (e) => void (await baSignIn(ba, e))),
      },
      {
        key: 'continue-with-email',
        label: `email-code sign-in in two steps, concurrency ${n}: svc "continue with email" (register → code → verify-email-otp) vs the same Better Auth flow (no target: the contract's sign-in is the line above)`,
        target: null,
        concurrency: n,
        svc: pool(svcUsers, (e) => svcContinueWithEmail(app, e)),
        ba: pool(baUsers, async (e) => void (await baSignIn(ba, e))),
      },
      {
        key: 'refresh',
        label: `session refresh: svc POST /auth/refresh (rotation) vs BA get-session with updateAge 0 (expiry extended), concurrency ${n}`,
        target: targetOf('refresh', runtime),
        concurrency: n,
        svc: pool(svcChains, async (jar) => {
          const r = await client.call(`${app}/auth/refresh`, {
            method: 'POST',
            headers: { ...origin, cookie: jar.header() },
          });
          ok(r, 'svc refresh');
          jar.update(r.setCookies);
        }),
        ba: pool(baChains, async (jar) => {
          const r = await client.call(`${ba}/rolling/api/auth/get-session?disableCookieCache=true`, {
            headers: { cookie: jar.header() },
          });
          ok(r, 'BA rolling get-session');
          jar.update(r.setCookies);
        }),
      },
    ];

    const measured = await measureCases(gen, cases, { rounds: ROUNDS, roundMs: ROUND_MS, settleMs: SETTLE_MS, pids });
    console.log(
      `\n${runtime === 'node' ? `Node ${process.version}` : `Bun ${execFileSync(BIN.bun, ['--version']).toString().trim()}`} — every server in its own process; load average ${loadAverage()}`,
    );
    const lines: LineRun[] = [];
    for (const m of measured) {
      const { text, line } = reportLine(runtime, m, RUNS > 1);
      console.log(text);
      lines.push(line);
    }
    return lines;
  } finally {
    for (const p of procs) await p.stop();
  }
}

async function main() {
  const started = performance.now();
  installPeer();
  const peerVersion = (
    JSON.parse(
      execFileSync('node', ['-p', 'JSON.stringify(require("./node_modules/better-auth/package.json"))'], {
        cwd: PEERS,
      }).toString(),
    ) as { version: string }
  ).version;
  console.log(
    `peers bench — ${machine()}; Better Auth ${peerVersion}; ${RUNS > 1 ? `${RUNS} runs of ` : ''}${ROUNDS} interleaved rounds × ${ROUND_MS} ms (each after a ${SETTLE_MS} ms unmeasured lead-in); load average ${loadAverage()} (before)`,
  );
  // Every server process inherits this environment, so a Bun allocator setting applies to both sides alike
  // (docs/deploying.md#bun-on-a-virtual-machine); say which one this run had.
  console.log(
    process.env['MIMALLOC_PURGE_DELAY'] === undefined
      ? "Bun's allocator: Bun's defaults"
      : `Bun's allocator: MIMALLOC_PURGE_DELAY=${process.env['MIMALLOC_PURGE_DELAY']} in every Bun process, svc's and Better Auth's`,
  );
  // Compiled before the first run, so tsc never shares the cores with a measured round.
  if (RUNTIMES.includes('node')) nodeRunner(ROOT);
  console.log(
    nodeSvcMode() === 'tsx'
      ? 'svc on Node: its TypeScript through tsx (NODE_SVC=tsx); Better Auth runs compiled JavaScript'
      : 'svc on Node: compiled JavaScript (tsc, as the package is built), as Better Auth runs; NODE_SVC=tsx runs the source through tsx',
  );
  console.log(
    `svc LOGIN_RESPONSE_FLOOR_MS=${process.env['LOGIN_RESPONSE_FLOOR_MS'] ?? '0'} (the 250 ms default caps a sign-in at ≥ 500 ms by design)`,
  );
  const runs = new Map<Runtime, LineRun[][]>(RUNTIMES.map((rt) => [rt, []]));
  try {
    for (let k = 1; k <= RUNS; k++) {
      if (RUNS > 1) console.log(`\n=== run ${k} of ${RUNS}: load average ${loadAverage()} (start)`);
      // A run is the whole comparison with fresh processes and fresh databases.
      const dir = tempDir('bench-peers');
      try {
        for (const runtime of RUNTIMES) runs.get(runtime)!.push(await runtimeRun(runtime, dir));
      } finally {
        removeDir(dir);
      }
      if (RUNS > 1) console.log(`=== run ${k} of ${RUNS}: load average ${loadAverage()} (end)`);
    }
  } finally {
    client.close();
    await gen.close();
  }
  if (RUNS > 1) {
    console.log(
      `\nCPU per op: user + system time of the server processes (/proc/<pid>/stat, all threads) over a measured round ÷ the operations it completed; svc counts its app and its API process, Better Auth its one process.`,
    );
    for (const [runtime, r] of runs) console.log(formatSummary(runtime, summarizeRuns(runtime, r)));
  }
  console.log(`\nload average ${loadAverage()} (after); total ${fmt((performance.now() - started) / 1000, 1)} s`);
}

await main();
