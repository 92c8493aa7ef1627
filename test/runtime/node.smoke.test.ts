/**
 * The Node entry (`npm run api` = `tsx src/node.ts`) as a real process:
 * configured from env only, it boots on a file database and serves JWKS; bad
 * configuration stops it at startup with one line per bad variable.
 */
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectHeadersOverSocket } from './headers.js';
import { BIN, freePort, http, removeDir, smokeEnv, start, tempDir, waitForHttp, type Spawned } from './processes.js';

/** Writes raw bytes to the server and reads until it closes the connection. */
function rawExchange(port: number, request: string, timeoutMs = 5000): Promise<{ head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const timer = setTimeout(
      () => (socket.destroy(), reject(new Error(`no answer within ${timeoutMs} ms: ${data}`))),
      timeoutMs,
    );
    socket.on('data', (d) => (data += d));
    socket.on('error', () => {}); // the server may reset after answering
    socket.on('close', () => {
      clearTimeout(timer);
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ head, body });
    });
    socket.write(request);
  });
}

describe('auth API on Node (src/node.ts)', () => {
  let node: Spawned | undefined;
  let dir: string | undefined;
  let base = '';
  let env: Record<string, string> = {};

  beforeAll(async () => {
    dir = tempDir('node');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = {
      ...smokeEnv(base, `file:${join(dir, 'nested', 'svc.db')}`),
      PORT: String(port),
      HOST: '127.0.0.1',
      HTTP_REQUEST_TIMEOUT_MS: '1000',
    };
    node = start(process.execPath, [...BIN.tsxNode, 'src/node.ts'], { env });
    await waitForHttp(`${base}/health/status`, node, 30_000);
  }, 45_000);

  const port = () => Number(new URL(base).port);

  afterAll(async () => {
    await node?.stop();
    removeDir(dir);
  });

  it('creates the database file and serves the dev JWKS', async () => {
    expect(node!.output()).toContain(`svc auth API listening on ${base}`);
    expect(existsSync(join(dir!, 'nested', 'svc.db'))).toBe(true);
    const res = await http(`${base}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(res.body.keys.map((k: { kid: string }) => k.kid)).toEqual(['dev-main']);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
  });

  it('keeps Allow on 405 and Retry-After on 423 over a real socket (@hono/node-server)', async () => {
    await expectHeadersOverSocket(base, env);
  });

  it('answers oversize headers with the 431 envelope, and a body that never arrives with 408 within the bound', async () => {
    const big = await rawExchange(
      port(),
      `GET /health/status HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(big.head).toMatch(/^HTTP\/1\.1 431 /);
    expect(big.head).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(big.body)).toEqual({ error: 'headers_too_large', message: 'Request header fields too large' });

    // Declares 1000 bytes, sends 10, then waits: the server answers 408 and closes (bound: 1 s here).
    const started = Date.now();
    const partial = await rawExchange(
      port(),
      'POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"identif',
      15_000,
    );
    expect(partial.head).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(partial.body)).toEqual({
      error: 'request_timeout',
      message: 'The request did not arrive in time',
    });
    expect(Date.now() - started).toBeLessThan(10_000); // Node's default would hold it for 300 s

    const garbage = await rawExchange(port(), 'NOT HTTP AT ALL\r\n\r\n');
    expect(garbage.head).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(garbage.body)).toMatchObject({ error: 'invalid_request' });
  });

  const failures: [string, Record<string, string | undefined>, string][] = [
    [
      'a malformed ISSUER',
      { ISSUER: 'not a url' },
      'svc-auth: configuration error: ISSUER: must be an absolute http(s) URL',
    ],
    ['a malformed duration seed', { ACCESS_TOKEN_TTL: 'soon' }, 'ACCESS_TOKEN_TTL'],
    ['an unsupported DATABASE_URL', { DATABASE_URL: 'postgres://x' }, 'DATABASE_URL'],
  ];
  for (const [name, over, line] of failures) {
    it.concurrent(`exits non-zero at startup on ${name}, printing one line naming the variable`, async () => {
      const fresh = tempDir('node-bad');
      try {
        const bad = start(process.execPath, [...BIN.tsxNode, 'src/node.ts'], {
          env: {
            ...smokeEnv('http://127.0.0.1:1', `file:${join(fresh, 'svc.db')}`),
            PORT: String(await freePort()),
            ...over,
          },
        });
        const code = await bad.exited;
        expect(code).not.toBe(0);
        const lines = bad.output().trim().split('\n');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(/^svc-auth: configuration error: /);
        expect(lines[0]).toContain(line);
      } finally {
        removeDir(fresh);
      }
    });
  }

  it("starts with only PORT, ISSUER and DATABASE_URL on a fresh database (the docs' minimal `npm run api`)", async () => {
    const fresh = tempDir('node-minimal');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    // Only PATH and the three variables: nothing of this process's environment leaks in.
    const minimal = start(process.execPath, [...BIN.tsxNode, 'src/node.ts'], {
      env: {
        ...Object.fromEntries(Object.keys(process.env).map((k) => [k, undefined])),
        PATH: process.env['PATH'],
        PORT: String(port),
        ISSUER: url,
        DATABASE_URL: `file:${join(fresh, 'svc.db')}`,
      },
    });
    try {
      await waitForHttp(`${url}/health/status`, minimal, 30_000);
      expect((await http(`${url}/.well-known/jwks.json`)).status).toBe(200);
    } finally {
      await minimal.stop();
      removeDir(fresh);
    }
  });

  it('reports every bad variable of one start, one line each, and exits non-zero', async () => {
    const fresh = tempDir('node-bad-many');
    try {
      const bad = start(process.execPath, [...BIN.tsxNode, 'src/node.ts'], {
        env: {
          ...smokeEnv('http://127.0.0.1:1', `file:${join(fresh, 'svc.db')}`),
          PORT: String(await freePort()),
          ISSUER: 'not a url',
          TRUST_PROXY: 'all',
          RATE_LIMIT: 'lots',
        },
      });
      expect(await bad.exited).not.toBe(0);
      expect(bad.output().trim().split('\n')).toEqual([
        'svc-auth: configuration error: ISSUER: must be an absolute http(s) URL',
        'svc-auth: configuration error: TRUST_PROXY: must be unset or xff:<n> with n ≥ 1',
        'svc-auth: configuration error: RATE_LIMIT: must be a base-10 integer (seed of rate_limit)',
      ]);
    } finally {
      removeDir(fresh);
    }
  });

  it('exits non-zero with one line when the port is taken', async () => {
    const port = new URL(base).port;
    const bad = start(process.execPath, [...BIN.tsxNode, 'src/node.ts'], { env: { ...env, PORT: port } });
    expect(await bad.exited).not.toBe(0);
    const lines = bad
      .output()
      .trim()
      .split('\n')
      .filter((l) => !l.startsWith('[svc-auth] warn'));
    expect(lines).toEqual([
      `svc-auth: configuration error: PORT: cannot listen on 127.0.0.1:${port} (EADDRINUSE): the port is in use; stop what uses it, or start with PORT=<another port> (HOST=<address> to change the address)`,
    ]);
  });
});
