/**
 * No request may hang. The API talks to a real sqld through
 * a proxy that, once told to, accepts connections and never answers — a
 * wedged database as the flood left it. With DB_TIMEOUT_MS the call is
 * abandoned and the request answers 503; with only REQUEST_DEADLINE_MS the
 * request answers 503 at the deadline. Nothing is lost: the same refresh token
 * rotates once the database answers again.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/db/open.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi } from '../../helpers/make-app.js';
import { BIN, freePort, removeDir, start, tempDir, waitForHttp, type Spawned } from '../../runtime/processes.js';

let sqld: Spawned | undefined;
let proxy: Server | undefined;
let dir: string | undefined;
let proxyUrl = '';
let hang = false;
const held = new Set<Socket>();

beforeAll(async () => {
  dir = tempDir('deadline');
  const sqldPort = await freePort();
  sqld = start(
    BIN.sqld,
    ['--http-listen-addr', `127.0.0.1:${sqldPort}`, '--db-path', `${dir}/sqld-data`, '--no-welcome'],
    { cwd: dir },
  );
  await waitForHttp(`http://127.0.0.1:${sqldPort}/health`, sqld, 20_000);
  proxy = createServer((req, res) => {
    if (hang) {
      held.add(req.socket); // accept, read, never answer
      return;
    }
    const upstream = httpRequest(
      { host: '127.0.0.1', port: sqldPort, path: req.url, method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  const port = await freePort();
  await new Promise<void>((r) => proxy!.listen(port, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${port}`;
}, 30_000);

afterAll(async () => {
  for (const s of held) s.destroy();
  await new Promise((r) => proxy?.close(r));
  await sqld?.stop();
  removeDir(dir);
});

async function apiOn(callTimeoutMs: number, deadlineMs: number) {
  hang = false;
  const { client } = await openDatabase(proxyUrl, undefined, { callTimeoutMs });
  const t = await makeApi({ client, env: { REQUEST_DEADLINE_MS: String(deadlineMs) } });
  const session = await signIn(t, await createUser(t));
  return { t, session };
}

describe('a database that stops answering', () => {
  it('DB_TIMEOUT_MS: the call is abandoned and the request answers 503 with Retry-After; the same token rotates afterwards', async () => {
    // 2 s, not less: the setup's own calls on a loaded machine must not reach it (a 300 ms bound did, once, in a
    // full run beside other suites); the hang is forever, so any bound shows the call being abandoned.
    const { t, session } = await apiOn(2000, 0);
    hang = true;
    const stuck = await t.call('POST', '/refresh', { token: session.refreshToken });
    expect(stuck.status).toBe(503);
    expect(stuck.body).toMatchObject({ error: 'service_unavailable', retryAfterSeconds: 1 });
    expect(stuck.headers.get('retry-after')).toBe('1');
    hang = false;
    const retried = await t.call('POST', '/refresh', { token: session.refreshToken });
    expect(retried.status).toBe(200);
  }, 30_000);

  it('REQUEST_DEADLINE_MS: with no call timeout, the request still answers 503 at the deadline', async () => {
    const { t, session } = await apiOn(0, 500);
    hang = true;
    const started = Date.now();
    const [me, refresh] = await Promise.all([
      t.call('GET', '/users/me', { token: session.token }),
      t.call('POST', '/refresh', { token: session.refreshToken }),
    ]);
    for (const res of [me, refresh]) {
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        error: 'service_unavailable',
        message: 'The service is busy; retry shortly',
        retryAfterSeconds: 1,
      });
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    expect(Date.now() - started).toBeLessThan(20_000); // not the test's own timeout: the deadline answered
    expect(t.logs.some((l) => l.line.includes('request deadline passed'))).toBe(true);
    hang = false;
    expect((await t.call('GET', '/health/status')).status).toBe(200);
  }, 30_000);
});
