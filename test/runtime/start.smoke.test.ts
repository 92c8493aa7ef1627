/**
 * `npm start` (scripts/start.ts) with zero configuration in an empty directory:
 * it creates ./.data/svc.db, prints its URL and serves JWKS; a `.env` file in
 * the directory is honoured.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, freePort, http, removeDir, start, tempDir, waitForHttp, type Spawned } from './processes.js';

describe('npm start', () => {
  let proc: Spawned | undefined;
  let dir: string | undefined;
  let base = '';
  let demo = '';

  beforeAll(async () => {
    dir = tempDir('start');
    const port = await freePort();
    const demoPort = await freePort();
    base = `http://127.0.0.1:${port}`;
    demo = `http://localhost:${demoPort}`;
    writeFileSync(
      join(dir, '.env'),
      `# local overrides\nAPP_NAME="svc from dotenv"\nPORT=${port}\nDEMO_PORT=${demoPort}\n`,
    );
    // Only PATH/HOME from the parent: no config variables leak into the zero-config run.
    const clean = { PATH: process.env['PATH'], HOME: process.env['HOME'] };
    proc = start(process.execPath, [...BIN.tsxNode, join(ROOT, 'scripts/start.ts')], { cwd: dir, env: clean });
    await waitForHttp(`${base}/health/status`, proc, 30_000);
    await waitForHttp(`${demo}/`, proc, 30_000);
  }, 45_000);

  afterAll(async () => {
    await proc?.stop();
    removeDir(dir);
  });

  it('prints one block once both are up: demo URL, API URL, where codes appear, how to stop', async () => {
    const out = proc!.output();
    const block = out.slice(out.indexOf('svc is running'));
    expect(block).toMatch(new RegExp(`demo app +${demo} `));
    expect(block).toMatch(new RegExp(`auth API +${base} `));
    expect(block).toContain('codes      sign-in codes and magic links are printed here');
    expect(block).toContain('stop       Ctrl+C');
    expect(block).toContain(`well-known ${demo}/.well-known/webauthn`);
  });

  it("serves the demo's /.well-known association files, the origins from the development defaults", async () => {
    const res = await http(`${demo}/.well-known/webauthn`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ origins: [demo] });
    expect((await http(`${demo}/.well-known/assetlinks.json`)).status).toBe(200);
    expect((await http(`${demo}/.well-known/apple-app-site-association`)).status).toBe(200);
  });

  it('creates ./.data/svc.db and answers the JWKS', async () => {
    expect(existsSync(join(dir!, '.data', 'svc.db'))).toBe(true);
    const res = await http(`${base}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(res.body.keys[0].kid).toBe('dev-main');
  });

  it('seeds system config from the development defaults and .env', async () => {
    const { createClient } = await import('@libsql/client');
    const client = createClient({ url: `file:${join(dir!, '.data', 'svc.db')}` });
    try {
      const rs = await client.execute(
        "SELECT key, value FROM system_config WHERE key IN ('app_name', 'rpid', 'origins')",
      );
      const rows = Object.fromEntries(rs.rows.map((r) => [r['key'], JSON.parse(String(r['value']))]));
      expect(rows).toEqual({ app_name: 'svc from dotenv', rpid: 'localhost', origins: [demo] });
    } finally {
      client.close();
    }
  });

  it('serves the demo login page and /auth/users/me answers 401 for an anonymous browser', async () => {
    const page = await fetch(`${demo}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Sign in or create an account');
    const me = await fetch(`${demo}/auth/users/me`);
    expect(me.status).toBe(401);
    expect(await me.json()).toEqual({ error: 'unauthorized', message: 'Access session required' });
  });

  it('stops with one line naming the cause when the demo port is taken, leaving nothing running', async () => {
    const fresh = tempDir('start-busy');
    const apiPort = await freePort();
    try {
      const busy = start(process.execPath, [...BIN.tsxNode, join(ROOT, 'scripts/start.ts')], {
        cwd: fresh,
        env: { PORT: String(apiPort), DEMO_PORT: new URL(demo).port },
      });
      expect(await busy.exited).toBe(1);
      const lines = busy
        .output()
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('[svc-auth] warn'));
      expect(lines).toEqual([
        `svc: the demo app did not start (port ${new URL(demo).port} is in use: stop what uses it or set DEMO_PORT)`,
      ]);
      await expect(fetch(`http://127.0.0.1:${apiPort}/health/status`)).rejects.toThrow();
    } finally {
      removeDir(fresh);
    }
  });

  it('stops with one line when ./.data cannot be created', async () => {
    const fresh = tempDir('start-data');
    try {
      writeFileSync(join(fresh, '.data'), 'a file where the directory should be');
      const bad = start(process.execPath, [...BIN.tsxNode, join(ROOT, 'scripts/start.ts')], {
        cwd: fresh,
        env: { PORT: String(await freePort()), DEMO_PORT: String(await freePort()) },
      });
      expect(await bad.exited).toBe(1);
      const lines = bad
        .output()
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('[svc-auth] warn'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^svc-auth: configuration error: DATABASE_URL: cannot create the database directory \.\/\.data \(E[A-Z]+\): choose a writable path$/,
      );
    } finally {
      removeDir(fresh);
    }
  });
});
