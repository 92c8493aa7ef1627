/**
 * Where "who am I" (`GET /auth/users/me` through the app) and a refresh (`POST /auth/refresh`) spend their
 * time on Bun: the same two processes as `npm run bench:peers` (the API `src/bun.ts` and the app
 * `bench/lib/svc-app.ts`), each optionally under `bun --cpu-prof`, driven one case at a time; prints the
 * CPU per operation of each process (`/proc/<pid>/stat`) and, with `PROFILE_DIR`, the top self-time
 * functions of each profile (bench/lib/top-frames.mjs) and who owns the measured part of it (bench/lib/owners.mjs:
 * svc's code, Hono, SQLite, the socket writes, the runtime). `RUNTIME=node` runs both on Node instead
 * (`src/node.ts` and the app, compiled first by bench/lib/node-build.ts), as `bench:peers` does.
 *
 *   npx tsx bench/profile-bun.ts                                  # CPU per op only
 *   PROFILE_DIR=/tmp/prof CASE=me npx tsx bench/profile-bun.ts    # one case per profile
 *
 * Env: `CASE` (`me`, `refresh`, `guarded` — the app's `requireAuth` route —, `hop` — the app → API call alone, to `/health/status` —, `ping` and `ping-cookie` — the app's no-auth route without and with the session cookies — or a list; default `me,refresh`), `ROUND_MS` (3000), `ROUNDS` (3), `CONNECTIONS` (32, for the reads), `ROOT_DIR` (another
 * checkout with node_modules, to measure its API and app instead: before/after on one machine).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, ROOT, freePort, removeDir, start, tempDir, waitForHttp } from '../test/runtime/processes.js';
import { fmt, loadAverage, measure, median } from './lib/load.js';
import { createLoadGenerator } from './lib/loadgen.js';
import { cpuUsOf } from './lib/peer-runs.js';
import { client, listening, ok, origin, pool, svcSignUp } from './lib/peer-flows.js';
import { benchEnv } from './lib/svc.js';
import { nodeRunner } from './lib/node-build.js';

const CASES = (process.env['CASE'] ?? 'me,refresh').split(',');
// The fixed-request reads: path, and whether the reader's session cookies go with it. `ping` and
// `ping-cookie` are the app's no-auth route without and with those cookies: what the guard's own work
// costs is `guarded` − `ping-cookie`, what reading the larger request costs is `ping-cookie` − `ping`.
const READ_PATHS = {
  me: ['/auth/users/me', true],
  guarded: ['/guarded', true],
  hop: ['/bench/hop', false],
  ping: ['/bench/ping', false],
  'ping-cookie': ['/bench/ping', true],
} as const;
const ROUND_MS = Number(process.env['ROUND_MS'] ?? 3000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const CONNECTIONS = Number(process.env['CONNECTIONS'] ?? 32); // of the fixed-request reads
const PROFILE_DIR = process.env['PROFILE_DIR'];
const TREE = process.env['ROOT_DIR'] ?? ROOT;
const EXIT_ON_TERM = join(ROOT, 'bench/lib/exit-on-term.mjs');

const NODE = process.env['RUNTIME'] === 'node';
const exec = NODE ? process.execPath : BIN.bun;
// On Node the tree's entries run compiled, as bench:peers runs them (bench/lib/node-build.ts; NODE_SVC=tsx: the source).
const ts = NODE ? nodeRunner(TREE) : (file: string) => [file];

const dir = tempDir('bench-profile-bun');
const gen = createLoadGenerator();
const prof = (name: string) =>
  PROFILE_DIR
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${join(PROFILE_DIR, name)}`,
        NODE ? '--import' : '--preload',
        NODE ? pathToFileURL(EXIT_ON_TERM).href : EXIT_ON_TERM,
      ]
    : [];
const apiPort = await freePort();
const api = start(exec, [...prof('api'), ...ts(join(TREE, NODE ? 'src/node.ts' : 'src/bun.ts'))], {
  cwd: TREE,
  env: {
    ...benchEnv,
    DATABASE_URL: `file:${join(dir, 'svc.db')}`,
    PORT: String(apiPort),
    HOST: '127.0.0.1',
    DELIVERY_MODE: 'none',
    NODE_ENV: 'development',
    LOGIN_METHODS: 'passkey,magic_link,email_otp',
    LOGIN_RESPONSE_FLOOR_MS: '0',
  },
});
try {
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  await waitForHttp(`${apiUrl}/health/status`, api, 60_000);
  const appProc = start(exec, [...prof('app'), ...ts(join(TREE, 'bench/lib/svc-app.ts'))], {
    cwd: TREE,
    env: { API_URL: apiUrl, PORT: '0' },
  });
  try {
    const app = await listening(appProc, 'svc app');
    const reader = await svcSignUp(app, 'reader@bench.test');
    const chains = await Promise.all(Array.from({ length: 8 }, (_, i) => svcSignUp(app, `chain-${i}@bench.test`)));
    const refresh = pool(chains, async (jar) => {
      const r = await client.call(`${app}/auth/refresh`, {
        method: 'POST',
        headers: { ...origin, cookie: jar.header() },
      });
      ok(r, 'svc refresh');
      jar.update(r.setCookies);
    });
    const me = {
      url: app,
      connections: CONNECTIONS,
      requests: [{ path: '/auth/users/me', headers: { cookie: reader.header() } }],
    };
    console.log(`${NODE ? `Node ${process.version}` : 'Bun'}, tree ${TREE}; load average ${loadAverage()}`);
    for (const c of CASES) {
      // gen: this process (the load generator's worker thread and its sockets), to see how much of the two
      // cores the measuring side takes at each rate.
      const perOp = { api: [] as number[], app: [] as number[], gen: [] as number[] };
      const rps: number[] = [];
      for (let r = -1; r < ROUNDS; r++) {
        const [a0, p0, g0] = [cpuUsOf([api.child.pid]), cpuUsOf([appProc.child.pid]), cpuUsOf([process.pid])];
        let ops: number;
        if (c in READ_PATHS) {
          const [path, withCookie] = READ_PATHS[c as keyof typeof READ_PATHS];
          const headers = withCookie ? me.requests[0]!.headers : {};
          const read = { ...me, requests: [{ path, headers }] };
          const res = await gen.run({ ...read, durationMs: r < 0 ? 1000 : ROUND_MS });
          if (res.non2xx || res.errors) throw new Error(`${c}: ${res.non2xx} non-2xx, ${res.errors} errors`);
          [ops] = [res.ok, rps.push(res.rps)];
        } else {
          const res = await measure(refresh, 8, r < 0 ? 1000 : ROUND_MS);
          [ops] = [res.latMs.length, rps.push(res.rps)];
        }
        if (r < 0) {
          rps.pop(); // the first round is a warm-up
          continue;
        }
        perOp.api.push((cpuUsOf([api.child.pid]) - a0) / ops);
        perOp.app.push((cpuUsOf([appProc.child.pid]) - p0) / ops);
        perOp.gen.push((cpuUsOf([process.pid]) - g0) / ops);
      }
      const [a, p] = [median(perOp.api), median(perOp.app)];
      console.log(
        `  ${c}: ${fmt(median(rps))} req/s; CPU per op: app ${fmt(p)} µs + API ${fmt(a)} µs = ${fmt(a + p)} µs (rounds: ${perOp.app.map((x, i) => fmt(x + perOp.api[i]!)).join(', ')}); load generator ${fmt(median(perOp.gen))} µs`,
      );
    }
  } finally {
    await appProc.stop();
  }
} finally {
  await api.stop();
  client.close();
  await gen.close();
  removeDir(dir);
}
if (PROFILE_DIR) {
  for (const name of ['app', 'api']) {
    const d = join(PROFILE_DIR, name);
    for (const f of readdirSync(d).filter((x) => x.endsWith('.cpuprofile'))) {
      console.log(`\n${name}: ${f}`);
      console.log(execFileSync('node', [join(ROOT, 'bench/lib/top-frames.mjs'), join(d, f), '25']).toString());
      // Who owns the measured rounds' CPU (the warm-up and the rounds: the profile's last part).
      const measuredMs = String(CASES.length * (ROUNDS * ROUND_MS + 1000));
      console.log(execFileSync('node', [join(ROOT, 'bench/lib/owners.mjs'), join(d, f), measuredMs]).toString());
    }
  }
}
