/**
 * `npm run bench:adapter`: the adapter's hot paths, reported as ratios measured
 * side by side in one run.
 *
 * 1. A Hono route guarded by `requireAuth` (cookie path) vs the same route
 *    unguarded — in-process through `app.fetch` (no sockets), so the ratio is
 *    the guard's own cost. Target: guarded ≥ 0.90 of unguarded req/s.
 * 2. `GET /auth/users/me` through the adapter vs `GET /users/me` on the API
 *    directly. (a) in-process: the adapter's `fetch` is the API's
 *    `app.request` (target: ≤ 1.15× latency); (b) over loopback HTTP with
 *    keep-alive (informational: adds a second network hop).
 * Numbers are noisy on a shared machine; rounds alternate to spread the noise.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createCookieCodec } from '../adapter/core/cookies.js';
import { requireAuth, svcAdapter } from '../adapter/hono/index.js';
import { createAuthApi } from '../src/index.js';
import { createLogger } from '../src/log.js';
import { signedInSession } from './lib/svc.js';

const ISSUER = 'http://bench.test';
const SERVICE = 'bench-service-token-0123456789abcdef-0123456789';
const COOKIE_SECRET = 'bench-cookie-secret-0123456789abcdef-0123456789';
const ORIGIN = 'http://localhost:3000';
const ROUND_MS = Number(process.env['BENCH_ROUND_MS'] ?? 1500);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const CONCURRENCY = 16;

const fmt = (n: number, d = 0) => n.toFixed(d);
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Runs `call` with CONCURRENCY workers for ROUND_MS; returns req/s and latencies (ms). */
async function measure(call: () => Promise<Response>): Promise<{ rps: number; lat: number[] }> {
  const lat: number[] = [];
  const end = performance.now() + ROUND_MS;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const res = await call();
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`unexpected ${res.status}`);
      lat.push(performance.now() - t0);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { rps: lat.length / ((performance.now() - start) / 1000), lat };
}

async function compare(label: string, a: [string, () => Promise<Response>], b: [string, () => Promise<Response>]) {
  for (let i = 0; i < 200; i++) await (await a[1]()).arrayBuffer(), await (await b[1]()).arrayBuffer(); // warm-up
  const ra: { rps: number; lat: number[] }[] = [];
  const rb: { rps: number; lat: number[] }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    ra.push(await measure(a[1]));
    rb.push(await measure(b[1]));
  }
  const sum = (xs: { rps: number; lat: number[] }[]) => {
    const lat = xs.flatMap((x) => x.lat).sort((x, y) => x - y);
    return {
      rps: xs.reduce((s, x) => s + x.rps, 0) / xs.length,
      p50: pct(lat, 50),
      p99: pct(lat, 99),
      mean: lat.reduce((s, x) => s + x, 0) / lat.length,
    };
  };
  const sa = sum(ra);
  const sb = sum(rb);
  console.log(`\n${label}`);
  for (const [name, s] of [
    [a[0], sa],
    [b[0], sb],
  ] as const)
    console.log(
      `  ${name.padEnd(34)} ${fmt(s.rps).padStart(7)} req/s   p50 ${fmt(s.p50, 2)} ms   p99 ${fmt(s.p99, 2)} ms`,
    );
  return { a: sa, b: sb };
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-adapter-'));
try {
  const api = await createAuthApi({
    env: {
      ISSUER,
      API_SERVICE_TOKEN: SERVICE,
      DATABASE_URL: `file:${join(dir, 'bench.db')}`,
      APP_NAME: 'bench',
      DEFAULT_ROLES: 'user',
      AVAILABLE_ROLES: 'user,admin',
      ACCESS_TOKEN_TTL: '1h',
      REFRESH_TOKEN_TTL: '1d',
      RATE_LIMIT: '1000000',
      DISABLE_AUTH_RATE_LIMITS: 'true',
      DELAY_AFTER: '0',
      RPID: 'localhost',
      ORIGINS: ORIGIN,
    },
    logger: createLogger(() => {}),
  });
  const env = await signedInSession(api);
  const cookie = `svc-access=${createCookieCodec(COOKIE_SECRET, ORIGIN).sign({ kind: 'access', sub: env.sub, sessionId: env.sessionId, token: env.token, roles: env.roles, email: env.email, phone: env.phone, organizationId: env.organizationId }, env.ttl, Date.now())}`;

  // 1. requireAuth guard
  const app = new Hono();
  app.get('/plain', (c) => c.json({ ok: true }));
  app.get('/guarded', requireAuth({ cookieSecret: COOKIE_SECRET, issuer: ORIGIN }), (c) => c.json({ ok: true }));
  const guardReq = () => new Request('http://app.local/guarded', { headers: { cookie } });
  const g = await compare(
    'requireAuth-guarded Hono route vs unguarded (in-process app.fetch, same cookie each call)',
    ['unguarded', () => Promise.resolve(app.fetch(new Request('http://app.local/plain', { headers: { cookie } })))],
    ['guarded (requireAuth, cookie)', () => Promise.resolve(app.fetch(guardReq()))],
  );

  // 2a. adapter vs direct, in-process
  const opts = {
    authServerUrl: ISSUER,
    audience: ISSUER,
    cookieSecret: COOKIE_SECRET,
    serviceSecret: SERVICE,
    issuer: ORIGIN,
    resolveClientIp: () => '203.0.113.7',
    log: () => {},
  };
  const inproc = new Hono();
  inproc.route('/auth', svcAdapter({ ...opts, fetch: (input, init) => Promise.resolve(api.request(input, init)) }));
  const p = await compare(
    'GET /users/me direct vs through the adapter (in-process: adapter fetch = api.request)',
    [
      'direct API (bearer)',
      () => Promise.resolve(api.request('/users/me', { headers: { authorization: `Bearer ${env.token}` } })),
    ],
    [
      'adapter /auth/users/me (cookie)',
      () => Promise.resolve(inproc.fetch(new Request('http://app.local/auth/users/me', { headers: { cookie } }))),
    ],
  );

  // 2c. the adapter's own cost per request: upstream stubbed with a fixed /users/me answer
  const meBody = await (await api.request('/users/me', { headers: { authorization: `Bearer ${env.token}` } })).text();
  const stubbed = new Hono();
  stubbed.route(
    '/auth',
    svcAdapter({
      ...opts,
      fetch: async () => new Response(meBody, { status: 200, headers: { 'content-type': 'application/json' } }),
    }),
  );
  const o = await compare(
    'adapter cost per request: /auth/users/me with a stubbed upstream vs a plain Hono JSON route (in-process)',
    [
      'plain Hono JSON route',
      () => Promise.resolve(app.fetch(new Request('http://app.local/plain', { headers: { cookie } }))),
    ],
    [
      'adapter, stubbed upstream',
      () => Promise.resolve(stubbed.fetch(new Request('http://app.local/auth/users/me', { headers: { cookie } }))),
    ],
  );

  // 2b. loopback HTTP
  const apiServer = serve({ fetch: api.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => apiServer.once('listening', () => r()));
  const apiUrl = `http://127.0.0.1:${(apiServer.address() as { port: number }).port}`;
  const httpApp = new Hono();
  httpApp.route('/auth', svcAdapter({ ...opts, authServerUrl: apiUrl }));
  const appServer = serve({ fetch: httpApp.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => appServer.once('listening', () => r()));
  const appUrl = `http://127.0.0.1:${(appServer.address() as { port: number }).port}`;
  const l = await compare(
    'GET /users/me direct vs through the adapter (loopback HTTP, keep-alive, one process)',
    ['direct API over HTTP', () => fetch(`${apiUrl}/users/me`, { headers: { authorization: `Bearer ${env.token}` } })],
    ['adapter over HTTP (2 hops)', () => fetch(`${appUrl}/auth/users/me`, { headers: { cookie } })],
  );
  apiServer.close();
  appServer.close();

  console.log('\nRatios');
  console.log(`  guarded / unguarded req/s:                 ${fmt(g.b.rps / g.a.rps, 2)}   (target ≥ 0.90)`);
  console.log(`  adapter / direct mean latency, in-process: ${fmt(p.b.mean / p.a.mean, 2)}×  (target ≤ 1.15×)`);
  console.log(
    `  adapter own cost per request (stubbed):    ${fmt((1000 / o.b.rps - 1000 / o.a.rps) * 1000)} µs of CPU-bound time per request at concurrency ${CONCURRENCY}`,
  );
  console.log(
    `  adapter / direct mean latency, loopback:   ${fmt(l.b.mean / l.a.mean, 2)}×  (informational: one extra HTTP hop)`,
  );
  await api.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
