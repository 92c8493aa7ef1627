/**
 * The Bun entry (`bun src/bun.ts`) on an embedded libSQL file: boot, JWKS,
 * refresh rotation against a session issued by a Node API on the same file,
 * and the one-line startup failure on bad configuration.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectHeadersOverSocket } from './headers.js';
import { expectRefreshRoundTrip, sessionInSharedDb } from './remote-session.js';
import { BIN, freePort, http, removeDir, smokeEnv, start, tempDir, waitForHttp, type Spawned } from './processes.js';

describe('auth API on Bun', () => {
  let bun: Spawned | undefined;
  let dir: string | undefined;
  let base = '';
  let env: Record<string, string> = {};

  beforeAll(async () => {
    dir = tempDir('bun');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = smokeEnv(base, `file:${join(dir, 'db', 'svc.db')}`);
    bun = start(BIN.bun, ['src/bun.ts'], { env: { ...env, PORT: String(port), HOST: '127.0.0.1' } });
    await waitForHttp(`${base}/health/status`, bun, 30_000);
  }, 45_000);

  afterAll(async () => {
    await bun?.stop();
    removeDir(dir);
  });

  it('boots, creating the database file, and serves the dev JWKS', async () => {
    expect(bun!.output()).toContain(`listening on ${base}`);
    const res = await http(`${base}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(res.body.keys.map((k: { kid: string }) => k.kid)).toContain('dev-main');
  });

  it('keeps Allow on 405 and Retry-After on 423 over a real socket', async () => {
    await expectHeadersOverSocket(base, env);
  });

  it('rotates a refresh token once and detects the replay', async () => {
    const shared = await sessionInSharedDb(env);
    try {
      await expectRefreshRoundTrip(base, shared.session.refreshToken, shared.user.id);
    } finally {
      shared.close();
    }
  });

  it('fails at startup with one line naming a bad variable', async () => {
    const bad = start(BIN.bun, ['src/bun.ts'], {
      env: { ...env, ISSUER: 'not a url', PORT: String(await freePort()) },
    });
    const code = await bad.exited;
    expect(code).not.toBe(0);
    expect(bad.output().trim()).toBe('svc-auth: configuration error: ISSUER: must be an absolute http(s) URL');
  });
});
