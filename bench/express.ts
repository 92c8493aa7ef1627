/**
 * `npm run bench:express`: the Express twin next to the Hono adapter, both
 * served over loopback HTTP in one process (Hono on @hono/node-server, Express
 * on node:http), keep-alive clients, concurrency 16, rounds alternating.
 *
 * 1. `GET /auth/users/me` with a valid access cookie and the upstream stubbed
 *    with a fixed answer: the adapter's own cost per framework.
 * 2. An application route behind `requireAuth` (cookie path).
 * Informational: the point is that the Express layer adds no per-flow work,
 * only Express's own routing and response overhead.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import { Hono } from 'hono';
import { createCookieCodec } from '../adapter/core/cookies.js';
import { requireAuth as expressRequireAuth, svcExpressAdapter } from '../adapter/express/index.js';
import { requireAuth as honoRequireAuth, svcAdapter } from '../adapter/hono/index.js';

const ORIGIN = 'http://localhost:3000';
const COOKIE_SECRET = 'bench-cookie-secret-0123456789abcdef-0123456789';
const ROUND_MS = Number(process.env['BENCH_ROUND_MS'] ?? 1500);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const CONCURRENCY = 16;

const nowS = Math.floor(Date.now() / 1000);
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
// The inner token is only decoded for its `exp` on this path (the stubbed upstream never verifies it).
const innerToken = `${b64({ alg: 'RS256' })}.${b64({ sub: 'u1', exp: nowS + 3600 })}.sig`;
const cookie = `svc-access=${createCookieCodec(COOKIE_SECRET, ORIGIN).sign({ kind: 'access', sub: 'u1', sessionId: 's1', token: innerToken, roles: ['user'], email: 'a@b.co', phone: null, organizationId: null }, 3600, Date.now())}`;
const meBody = JSON.stringify({
  user: { id: 'u1', email: 'a@b.co', phone: null, roles: ['user'] },
  credentials: [],
  organizations: [],
});
const opts = {
  authServerUrl: 'http://api.bench',
  audience: 'http://api.bench',
  cookieSecret: COOKIE_SECRET,
  serviceSecret: 'bench-service-token-0123456789abcdef-0123456789',
  issuer: ORIGIN,
  resolveClientIp: () => '203.0.113.7',
  log: () => {},
  fetch: async () => new Response(meBody, { status: 200, headers: { 'content-type': 'application/json' } }),
};
const guard = { cookieSecret: COOKIE_SECRET, issuer: ORIGIN };

async function measure(url: string): Promise<{ rps: number; p50: number; p99: number }> {
  const lat: number[] = [];
  const end = performance.now() + ROUND_MS;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const res = await fetch(url, { headers: { cookie } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`unexpected ${res.status} from ${url}`);
      lat.push(performance.now() - t0);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  lat.sort((a, b) => a - b);
  return {
    rps: lat.length / ((performance.now() - start) / 1000),
    p50: lat[Math.floor(lat.length / 2)]!,
    p99: lat[Math.floor(lat.length * 0.99)]!,
  };
}

async function compare(label: string, hono: string, expressUrl: string) {
  for (let i = 0; i < 300; i++)
    await (await fetch(hono, { headers: { cookie } })).arrayBuffer(),
      await (await fetch(expressUrl, { headers: { cookie } })).arrayBuffer();
  const runs: Record<'Hono' | 'Express', { rps: number; p50: number; p99: number }[]> = { Hono: [], Express: [] };
  for (let r = 0; r < ROUNDS; r++) runs.Hono.push(await measure(hono)), runs.Express.push(await measure(expressUrl));
  console.log(`\n${label}`);
  const mean = (xs: { rps: number; p50: number; p99: number }[], k: 'rps' | 'p50' | 'p99') =>
    xs.reduce((s, x) => s + x[k], 0) / xs.length;
  for (const [name, xs] of Object.entries(runs))
    console.log(
      `  ${name.padEnd(8)} ${mean(xs, 'rps').toFixed(0).padStart(7)} req/s   p50 ${mean(xs, 'p50').toFixed(2)} ms   p99 ${mean(xs, 'p99').toFixed(2)} ms`,
    );
  console.log(`  Express / Hono req/s: ${(mean(runs.Express, 'rps') / mean(runs.Hono, 'rps')).toFixed(2)}`);
}

const listening = (server: Server) =>
  new Promise<string>((r) =>
    server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );

const honoApp = new Hono();
honoApp.route('/auth', svcAdapter(opts));
honoApp.get('/app', honoRequireAuth(guard), (c) => c.json({ ok: true }));
const honoServer = serve({ fetch: honoApp.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
await new Promise<void>((r) => honoServer.once('listening', () => r()));
const honoUrl = `http://127.0.0.1:${(honoServer.address() as AddressInfo).port}`;

const expressApp = express();
expressApp.use('/auth', svcExpressAdapter(opts));
expressApp.get('/app', expressRequireAuth(guard), (_req, res) => void res.json({ ok: true }));
const expressServer = createServer(expressApp);
const expressUrl = await listening(expressServer);

try {
  await compare(
    'GET /auth/users/me through the adapter, upstream stubbed (loopback HTTP)',
    `${honoUrl}/auth/users/me`,
    `${expressUrl}/auth/users/me`,
  );
  await compare('GET /app behind requireAuth (cookie path, loopback HTTP)', `${honoUrl}/app`, `${expressUrl}/app`);
} finally {
  honoServer.close();
  expressServer.closeAllConnections();
  expressServer.close();
}
