/**
 * A steady `GET /users/me` load for a CPU profile:
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/profile-me.ts
 *   node bench/lib/top-frames.mjs /tmp/prof/*.cpuprofile
 */
import { join } from 'node:path';
import { createAuthApi } from '../src/index.js';
import { createLogger } from '../src/log.js';
import { removeDir, tempDir } from '../test/runtime/processes.js';
import { expectStatus, fmt, measure } from './lib/load.js';
import { benchEnv, signedInUser } from './lib/svc.js';

const dir = tempDir('bench-prof');
const api = await createAuthApi({
  env: { ...benchEnv, DATABASE_URL: `file:${join(dir, 'prof.db')}` },
  logger: createLogger(() => {}),
});
const { token } = await signedInUser(api);
const auth = { headers: { authorization: `Bearer ${token}` } };
const call = async () => expectStatus(await api.request('/users/me', auth));
for (let i = 0; i < 300; i++) await call();
const r = await measure(call, 16, Number(process.env['BENCH_ROUND_MS'] ?? 5000));
console.log(`GET /users/me: ${fmt(r.rps)} req/s under the profiler`);
await api.close();
removeDir(dir);
