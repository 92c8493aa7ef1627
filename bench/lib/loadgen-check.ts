/**
 * Is the load generator the limit? `npx tsx bench/lib/loadgen-check.ts`
 * drives a trivial route (bench/lib/trivial-server.mjs: 200 `{"ok":true}`) in
 * its own process, on Node `node:http` and on Bun.serve, with three clients
 * in interleaved rounds, 32 connections each:
 *   - the previous load generator: `node:http` keep-alive agent (bench/lib/http-client.ts) + `measure()`;
 *   - bench/lib/loadgen.ts in the calling thread (`runLoad`);
 *   - bench/lib/loadgen.ts in its worker thread (`createLoadGenerator`, what `bench:peers` uses).
 * `RUNTIMES=node,bun`, `BENCH_ROUNDS` (3), `BENCH_ROUND_MS` (1500), `CONNECTIONS` (32).
 */
import { join } from 'node:path';
import { BIN, ROOT, start, type Spawned } from '../../test/runtime/processes.js';
import { createHttpClient } from './http-client.js';
import { createLoadGenerator, describeLoad, runLoad, type LoadResult } from './loadgen.js';
import { fmt, loadAverage, machine, measure, median } from './load.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const ROUND_MS = Number(process.env['BENCH_ROUND_MS'] ?? 1500);
const CONNECTIONS = Number(process.env['CONNECTIONS'] ?? 32);
const RUNTIMES = (process.env['RUNTIMES'] ?? 'node,bun').split(',') as ('node' | 'bun')[];

async function listening(proc: Spawned): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(proc.output());
    if (m) return m[1]!;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server did not start:\n${proc.output()}`);
}

console.log(
  `load generator check — ${machine()}; ${ROUNDS} rounds × ${ROUND_MS} ms, ${CONNECTIONS} connections; load average ${loadAverage()}`,
);
const gen = createLoadGenerator();
for (const runtime of RUNTIMES) {
  const proc = start(runtime === 'node' ? process.execPath : BIN.bun, [join(ROOT, 'bench/lib/trivial-server.mjs')]);
  try {
    const url = await listening(proc);
    const client = createHttpClient(CONNECTIONS);
    const oldClient = async () => {
      const r = await client.call(`${url}/`);
      if (r.status !== 200) throw new Error(`unexpected ${r.status}`);
    };
    const opts = {
      url,
      connections: CONNECTIONS,
      durationMs: ROUND_MS,
      requests: [{ path: '/', headers: { cookie: 'a=b' } }],
    };
    await measure(oldClient, CONNECTIONS, 300); // warm-up
    await runLoad({ ...opts, durationMs: 300 });
    await gen.run({ ...opts, durationMs: 300 });
    const rows = { old: [] as number[], main: [] as LoadResult[], worker: [] as LoadResult[] };
    for (let r = 0; r < ROUNDS; r++) {
      rows.old.push((await measure(oldClient, CONNECTIONS, ROUND_MS)).rps);
      rows.main.push(await runLoad(opts));
      rows.worker.push(await gen.run(opts));
    }
    client.close();
    const mid = (rs: LoadResult[]) => [...rs].sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)]!;
    const label = runtime === 'node' ? 'Node node:http server' : 'Bun.serve';
    console.log(`\n${label} (trivial route), load average ${loadAverage()}`);
    console.log(
      `  previous generator (node:http agent)   ${fmt(median(rows.old))} req/s (rounds ${rows.old.map((x) => fmt(x)).join(', ')})`,
    );
    console.log(
      `  loadgen, calling thread                ${describeLoad(mid(rows.main))} (rounds ${rows.main.map((x) => fmt(x.rps)).join(', ')})`,
    );
    console.log(
      `  loadgen, worker thread                 ${describeLoad(mid(rows.worker))} (rounds ${rows.worker.map((x) => fmt(x.rps)).join(', ')})`,
    );
    console.log(`  loadgen (worker) ÷ previous: ${fmt(mid(rows.worker).rps / median(rows.old), 2)}×`);
  } finally {
    await proc.stop();
  }
}
await gen.close();
