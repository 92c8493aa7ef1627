/**
 * The API alone behind its own server, no app in front: the load generator sends the adapter's headers
 * (service token, bearer access token, client IP) straight to `src/bun.ts` or `src/node.ts` and prints the
 * API process's CPU per request of each path (`/proc/<pid>/stat`). What `GET /users/me` costs behind the
 * runtime's HTTP server, against `/health/status` (no auth, no database) in the same process: the in-process
 * figure (`api.fetch`, no sockets) leaves out the server and the loopback TCP the runtime pays per answer.
 *
 *   npx tsx bench/api-direct.ts                          # Bun
 *   RUNTIME=node npx tsx bench/api-direct.ts             # Node: compiled first (bench/lib/node-build.ts; NODE_SVC=tsx: the source)
 *   PATHS=/users/me,/users/me CONNECTIONS=8 ROUND_MS=4000 npx tsx bench/api-direct.ts
 *
 * The user and its token are made in this process on the same database file before the server starts.
 */
import { join } from 'node:path';
import { BIN, ROOT, freePort, removeDir, start, tempDir, waitForHttp } from '../test/runtime/processes.js';
import { nodeRunner } from './lib/node-build.js';
import { createServiceTokens } from '../adapter/core/service-token.js';
import { createAuthApi } from '../src/index.js';
import { createLogger } from '../src/log.js';
import { fmt, loadAverage } from './lib/load.js';
import { createLoadGenerator } from './lib/loadgen.js';
import { cpuUsOf } from './lib/peer-runs.js';
import { benchEnv, signedInUser } from './lib/svc.js';

const NODE = process.env['RUNTIME'] === 'node';
const PATHS = (
  process.env['PATHS'] ?? '/health/status,/users/me,/health/status,/users/me,/health/status,/users/me'
).split(',');
const CONNECTIONS = Number(process.env['CONNECTIONS'] ?? 32);
const ROUND_MS = Number(process.env['ROUND_MS'] ?? 2000);

const dir = tempDir('bench-api-direct');
const env = { ...benchEnv, DATABASE_URL: `file:${join(dir, 'svc.db')}` };
const seed = await createAuthApi({ env, logger: createLogger(() => {}) });
const { token } = await signedInUser(seed);
await seed.close();
const serviceTokens = createServiceTokens(benchEnv.API_SERVICE_TOKEN, 'dev-main', 'svc-hono-adapter');
// A service token lives 60 s, so each path's rounds get a fresh one, as the adapter re-mints its own.
const headersNow = () => ({
  authorization: `Bearer ${token}`,
  'x-svc-service-token': serviceTokens.proxy(Date.now()),
  'x-svc-client-ip': '203.0.113.9',
  'x-svc-client-user-agent': 'bench',
  'user-agent': 'svc-adapter',
});
const port = await freePort();
const api = start(
  NODE ? process.execPath : BIN.bun,
  NODE ? nodeRunner(ROOT)(join(ROOT, 'src/node.ts')) : [join(ROOT, 'src/bun.ts')],
  {
    cwd: ROOT,
    env: {
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      NODE_ENV: 'development',
      DELIVERY_MODE: 'none',
      DISABLE_AUTH_RATE_LIMITS: 'true',
    },
  },
);
const url = `http://127.0.0.1:${port}`;
const gen = createLoadGenerator();
try {
  await waitForHttp(`${url}/health/status`, api, 60_000);
  console.log(
    `${NODE ? `Node ${process.version}` : 'Bun'} API alone, ${CONNECTIONS} connections; load average ${loadAverage()}`,
  );
  for (const path of PATHS) {
    const headers = headersNow();
    await gen.run({ url, connections: CONNECTIONS, requests: [{ path, headers }], durationMs: 500 }); // warm-up
    const before = cpuUsOf([api.child.pid]);
    const r = await gen.run({ url, connections: CONNECTIONS, requests: [{ path, headers }], durationMs: ROUND_MS });
    if (r.non2xx || r.errors) throw new Error(`${path}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    console.log(
      `  ${path.padEnd(16)} ${fmt(r.rps)} req/s; API CPU per request ${fmt((cpuUsOf([api.child.pid]) - before) / r.ok)} µs`,
    );
  }
} finally {
  await api.stop();
  await gen.close();
  removeDir(dir);
}
