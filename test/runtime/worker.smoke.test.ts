/**
 * The auth API on workerd (`wrangler dev`, the real Workers runtime) against a
 * real libSQL server (sqld): boot, JWKS, and an atomic refresh rotation, with
 * `wrangler.sqld.example.toml` (the libSQL entry, `src/worker-libsql.ts`) as
 * shipped, its vars replaced by the test's (no nodejs_compat flag).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectHeadersOverSocket } from './headers.js';
import { expectRefreshRoundTrip, sessionInSharedDb } from './remote-session.js';
import {
  BIN,
  ROOT,
  freePort,
  http,
  removeDir,
  smokeEnv,
  start,
  startWranglerDev,
  tempDir,
  waitForHttp,
  type Spawned,
} from './processes.js';

describe('auth API on workerd (wrangler dev) with sqld', () => {
  let sqld: Spawned | undefined;
  let worker: Spawned | undefined;
  let dir: string | undefined;
  let base = '';
  let env: Record<string, string> = {};

  beforeAll(async () => {
    dir = tempDir('workerd');
    const sqldPort = await freePort();
    sqld = start(
      BIN.sqld,
      ['--http-listen-addr', `127.0.0.1:${sqldPort}`, '--db-path', join(dir, 'sqld-data'), '--no-welcome'],
      { cwd: dir },
    );
    const dbUrl = `http://127.0.0.1:${sqldPort}`;
    await waitForHttp(`${dbUrl}/health`, sqld, 20_000);

    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = smokeEnv(base, dbUrl);
    ({ proc: worker } = await startWranglerDev({
      configs: [join(ROOT, 'wrangler.sqld.example.toml')],
      dir,
      port,
      persistDir: join(dir, 'wrangler-state'),
      logLevel: 'warn',
      vars: env,
    }));
    await waitForHttp(`${base}/health/status`, worker, 60_000);
  }, 90_000);

  afterAll(async () => {
    await worker?.stop();
    await sqld?.stop();
    removeDir(dir);
  });

  it('runs without the nodejs_compat flag (both shipped configs)', () => {
    for (const config of ['wrangler.toml', 'wrangler.sqld.example.toml'])
      expect(readFileSync(join(ROOT, config), 'utf8')).not.toMatch(/nodejs_compat/);
  });

  it('boots and serves the dev JWKS', async () => {
    const res = await http(`${base}/.well-known/jwks.json`);
    expect(res.status, worker!.output()).toBe(200);
    expect(res.body.keys.map((k: { kid: string }) => k.kid)).toContain('dev-main');
    expect(res.body.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
  });

  it('keeps Allow on 405 and Retry-After on 423 over a real socket', async () => {
    await expectHeadersOverSocket(base, env);
  });

  it('rotates a refresh token once and detects the replay', async () => {
    // A Node API on the same sqld issues the session; workerd rotates it.
    const shared = await sessionInSharedDb(env);
    try {
      await expectRefreshRoundTrip(base, shared.session.refreshToken, shared.user.id);
    } finally {
      shared.close();
    }
  });
});
