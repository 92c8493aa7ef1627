/**
 * The Deno entry (`deno run -A --sloppy-imports src/deno.ts`, npm packages from
 * the local node_modules) on an embedded libSQL file: boot, JWKS and a refresh
 * rotation. If Deno cannot resolve the npm packages (no node_modules layout it
 * understands, offline), the suite is skipped with the reason printed.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectHeadersOverSocket } from './headers.js';
import { expectRefreshRoundTrip, sessionInSharedDb } from './remote-session.js';
import { BIN, freePort, http, removeDir, smokeEnv, start, tempDir, waitForHttp, type Spawned } from './processes.js';

const RESOLUTION_FAILURE = /Could not (find|resolve)|Relative import path|npm package|Module not found|failed to load/i;

describe('auth API on Deno', () => {
  let deno: Spawned | undefined;
  let dir: string | undefined;
  let base = '';
  let env: Record<string, string> = {};
  let skipReason: string | null = null;

  beforeAll(async () => {
    dir = tempDir('deno');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = smokeEnv(base, `file:${join(dir, 'db', 'svc.db')}`);
    deno = start(BIN.deno, ['run', '-A', '--sloppy-imports', 'src/deno.ts'], {
      env: {
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DENO_NO_UPDATE_CHECK: '1',
        DENO_NO_PROMPT: '1',
        NO_COLOR: '1',
      },
    });
    try {
      await waitForHttp(`${base}/health/status`, deno, 60_000);
    } catch (err) {
      const out = deno.output();
      if (!RESOLUTION_FAILURE.test(out)) throw err;
      skipReason = `Deno could not resolve the npm dependencies offline: ${out
        .split('\n')
        .find((l) => RESOLUTION_FAILURE.test(l))
        ?.trim()}`;
      console.warn(`[deno smoke] SKIPPED — ${skipReason}`);
    }
  }, 75_000);

  afterAll(async () => {
    await deno?.stop();
    removeDir(dir);
  });

  it('boots and serves the dev JWKS', async (ctx) => {
    if (skipReason) ctx.skip();
    const res = await http(`${base}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(res.body.keys.map((k: { kid: string }) => k.kid)).toContain('dev-main');
  });

  it('keeps Allow on 405 and Retry-After on 423 over a real socket', async (ctx) => {
    if (skipReason) ctx.skip();
    await expectHeadersOverSocket(base, env);
  });

  it('rotates a refresh token once and detects the replay', async (ctx) => {
    if (skipReason) ctx.skip();
    const shared = await sessionInSharedDb(env);
    try {
      await expectRefreshRoundTrip(base, shared.session.refreshToken, shared.user.id);
    } finally {
      shared.close();
    }
  });
});
