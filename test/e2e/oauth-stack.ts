/**
 * `startStack` (harness.ts) with the OAuth provider on: the same
 * scripts/start.ts process, but the `OAUTH_SERVER` seed is built from the
 * demo's URL (the issuer is where the adapter is mounted), so the ports are
 * chosen before the process starts.
 */
import { join } from 'node:path';
import { BIN, ROOT, freePort, removeDir, start, tempDir, waitForHttp } from '../runtime/processes.js';
import type { Stack } from './harness.js';

export async function startOAuthStack(
  oauthServer: (demo: string) => Record<string, unknown>,
  extraEnv: Record<string, string> = {},
): Promise<Stack> {
  const dir = tempDir('e2e-oauth');
  const [apiPort, demoPort] = [await freePort(), await freePort()];
  const demo = `http://localhost:${demoPort}`;
  const api = `http://127.0.0.1:${apiPort}`;
  const env: Record<string, string | undefined> = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    NODE_ENV: 'development',
    PORT: String(apiPort),
    DEMO_PORT: String(demoPort),
    DATABASE_URL: `file:${join(dir, 'svc.db')}`,
    RPID: 'localhost',
    ORIGINS: demo,
    RATE_LIMIT: '10000',
    DELAY_AFTER: '0',
    LOGIN_RESPONSE_FLOOR_MS: '0',
    OAUTH_SERVER: JSON.stringify(oauthServer(demo)),
    ...extraEnv,
  };
  const proc = start(process.execPath, [...BIN.tsxNode, join(ROOT, 'scripts/start.ts')], { cwd: dir, env });
  const stop = async () => {
    await proc.stop();
    removeDir(dir);
  };
  try {
    await waitForHttp(`${api}/health/status`, proc, 45_000);
    await waitForHttp(`${demo}/`, proc, 45_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { demo, api, proc, stop };
}
