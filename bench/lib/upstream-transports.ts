/**
 * The app → API hop on Node, transport by transport: `callUpstream` (the
 * adapter's upstream call, adapter/core/upstream.ts) against a stub API in its
 * own process (bench/lib/trivial-server.mjs, `node:http`, a 700-byte JSON
 * answer) at 32 concurrent calls, interleaved rounds:
 *   - Node's global `fetch` (the adapter's default);
 *   - `nodeUpstreamFetch` (adapter/node/fetch.ts: `node:http` + keep-alive agent) at several `maxSockets`;
 *   - undici's `Pool.request` and undici's own `fetch`, when undici is importable
 *     (`npm i --prefix /tmp/undici-bench undici@7`, then `UNDICI=/tmp/undici-bench/node_modules/undici`).
 * Prints req/s, p50/p99 and the CPU this process spent per call (user + system),
 * which is the transport's cost whatever share of the cores the process got.
 *   npx tsx bench/lib/upstream-transports.ts    (BENCH_ROUNDS, BENCH_ROUND_MS, CONCURRENCY)
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { callUpstream } from '../../adapter/core/upstream.js';
import type { FetchLike } from '../../adapter/core/options.js';
import { nodeUpstreamFetch } from '../../adapter/node/fetch.js';
import { ROOT, start } from '../../test/runtime/processes.js';
import { fmt, loadAverage, machine, measure, median, pct, type RoundResult } from './load.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const ROUND_MS = Number(process.env['BENCH_ROUND_MS'] ?? 1500);
const CONCURRENCY = Number(process.env['CONCURRENCY'] ?? 32);

const proc = start(process.execPath, [join(ROOT, 'bench/lib/trivial-server.mjs')], { env: { BODY_BYTES: '700' } });
let base = '';
for (let i = 0; i < 300 && !base; i++) {
  base = /listening on (http:\/\/[\d.]+:\d+)/.exec(proc.output())?.[1] ?? '';
  if (!base) await new Promise((r) => setTimeout(r, 50));
}
if (!base) throw new Error(`stub did not start: ${proc.output()}`);

const transports: { name: string; fetch: FetchLike; close?: () => unknown }[] = [
  { name: 'global fetch (Node undici)', fetch: (u, i) => globalThis.fetch(u, i) },
];
for (const maxSockets of [8, 32, 64, 256]) {
  const f = nodeUpstreamFetch({ maxSockets });
  transports.push({ name: `nodeUpstreamFetch maxSockets ${maxSockets}`, fetch: f, close: () => f.close() });
}
const undiciPath = process.env['UNDICI'];
if (undiciPath) {
  type Undici = {
    Pool: new (
      origin: string,
      o: { connections: number; pipelining: number },
    ) => {
      request(o: {
        path: string;
        method: string;
        headers: Record<string, string>;
        body?: string;
        signal?: AbortSignal;
      }): Promise<{
        statusCode: number;
        headers: Record<string, string | string[]>;
        body: { arrayBuffer(): Promise<ArrayBuffer> };
      }>;
      close(): Promise<void>;
    };
    Agent: new (o: { connections: number }) => object;
    fetch: (u: string, i: RequestInit & { dispatcher?: object }) => Promise<Response>;
  };
  const undici = (await import(pathToFileURL(join(undiciPath, 'index.js')).href)) as Undici;
  const pool = new undici.Pool(base, { connections: CONCURRENCY, pipelining: 1 });
  transports.push({
    name: `undici Pool.request → Response (${CONCURRENCY} connections)`,
    fetch: async (u, init = {}) => {
      const url = new URL(u);
      const r = await pool.request({
        path: url.pathname + url.search,
        method: init.method ?? 'GET',
        headers: init.headers as Record<string, string>,
        body: init.body as string | undefined,
        signal: init.signal ?? undefined,
      });
      const headers = new Headers();
      for (const [k, v] of Object.entries(r.headers)) for (const x of Array.isArray(v) ? v : [v]) headers.append(k, x);
      return new Response(await r.body.arrayBuffer(), { status: r.statusCode, headers });
    },
    close: () => pool.close(),
  });
  const dispatcher = new undici.Agent({ connections: CONCURRENCY });
  transports.push({ name: 'undici 7 fetch (npm)', fetch: (u, i) => undici.fetch(u, { ...i, dispatcher }) });
}

const call = (f: FetchLike) => async () => {
  const r = await callUpstream(f, base, {
    method: 'GET',
    path: '/users/me',
    authorization: 'Bearer x.y.z',
    serviceToken: 's'.repeat(200),
    client: { ip: '127.0.0.1', userAgent: 'bench' },
  });
  if (!r.ok || r.status !== 200) throw new Error(`upstream call failed: ${JSON.stringify(r).slice(0, 200)}`);
};

console.log(
  `upstream transports — ${machine()}; ${CONCURRENCY} concurrent callUpstream GETs, ${ROUNDS} rounds × ${ROUND_MS} ms; load average ${loadAverage()}`,
);
for (const t of transports) await measure(call(t.fetch), CONCURRENCY, 400); // warm-up
const results = transports.map(() => [] as RoundResult[]);
for (let r = 0; r < ROUNDS; r++)
  for (const [i, t] of transports.entries()) results[i]!.push(await measure(call(t.fetch), CONCURRENCY, ROUND_MS));
const baseline = median(results[0]!.map((x) => x.cpuUsPerReq));
for (const [i, t] of transports.entries()) {
  const rs = results[i]!;
  const mid = [...rs].sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)]!;
  const cpu = median(rs.map((x) => x.cpuUsPerReq));
  console.log(
    `  ${t.name.padEnd(48)} ${fmt(median(rs.map((x) => x.rps))).padStart(6)} req/s (rounds ${rs.map((x) => fmt(x.rps)).join(', ')})  p50 ${fmt(pct(mid.latMs, 50), 2)} ms  p99 ${fmt(pct(mid.latMs, 99), 2)} ms  CPU ${fmt(cpu)} µs/call (${fmt(baseline / cpu, 2)}× less than fetch)`,
  );
}
console.log(`load average ${loadAverage()} (after)`);
for (const t of transports) await t.close?.();
await proc.stop();
