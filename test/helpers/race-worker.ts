/**
 * A second OS process for the refresh race test: boots its own auth API on
 * the database file named by DATABASE_URL, prints `ready`, then for every line
 * `<id> <refreshToken>` on stdin answers one JSON line `{id, status, error}`.
 * Run with `node --import tsx test/helpers/race-worker.ts`.
 */
import { createInterface } from 'node:readline';
import { createAuthApi } from '../../src/index.js';
import { createLogger } from '../../src/log.js';
import { baseEnv } from './make-app.js';

const api = await createAuthApi({
  env: { ...baseEnv, DATABASE_URL: process.env['DATABASE_URL'], DISABLE_AUTH_RATE_LIMITS: 'true' },
  logger: createLogger(() => {}),
});
process.stdout.write('ready\n');

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const [id, token] = line.trim().split(' ');
  if (!id || !token) continue;
  const res = await api.request('/refresh', { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { error?: string };
  process.stdout.write(`${JSON.stringify({ id, status: res.status, error: body.error ?? null })}\n`);
}
await api.close();
