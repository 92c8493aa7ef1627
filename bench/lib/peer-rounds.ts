/**
 * The cases of `npm run bench:peers` and how a run measures them: a warm-up, then interleaved rounds
 * (each after an unmeasured lead-in of the same case and side), with the req/s of each round and the
 * CPU per operation of the measured side's server processes (bench/lib/peer-runs.ts `cpuUsOf`).
 */
import { measure } from './load.js';
import { describeLoad, type LoadGenerator, type LoadResult } from './loadgen.js';
import type { Measured } from './peer-report.js';
import { cpuUsOf, type LineKey } from './peer-runs.js';

/** A fixed-request read: the same request on every connection, driven by the load generator (bench/lib/loadgen.ts). */
export interface Read {
  base: string;
  path: string;
  cookie?: string;
}

export type Pids = { svc: (number | undefined)[]; ba: (number | undefined)[] };

export interface Case {
  key: LineKey;
  label: string;
  /** What the two columns are (default svc and Better Auth). */
  names?: [string, string];
  target: number | null;
  concurrency: number;
  /** Reads go through the generator; flows (per-request cookies) through `measure` and the `node:http` client. */
  svc: Read | (() => Promise<void>);
  ba: Read | (() => Promise<void>);
  /** The server processes of each side whose CPU time an operation costs (default: svc's two, Better Auth's one). */
  pids?: Pids;
}

export interface RoundsOptions {
  rounds: number;
  roundMs: number;
  /** Unmeasured lead-in of the same case and side before every measured round (0: none). */
  settleMs: number;
  /** The processes of each side when a case names none. */
  pids: Pids;
}

/** Warms every case up, then measures them in interleaved rounds. */
export async function measureCases(gen: LoadGenerator, cases: Case[], o: RoundsOptions): Promise<Measured[]> {
  /** One round of a read through the generator; non-2xx answers and socket errors are kept for the report. */
  const readRound = (read: Read, connections: number, durationMs: number): Promise<LoadResult> =>
    gen.run({
      url: read.base,
      connections,
      durationMs,
      requests: [{ path: read.path, headers: read.cookie ? { cookie: read.cookie } : {} }],
    });
  // Warm-up (JIT, caches): reads through the generator, which must see 2xx only; flows 30 times each.
  for (const c of cases) {
    for (const side of ['svc', 'ba'] as const) {
      const run = c[side];
      if (typeof run === 'function') for (let i = 0; i < 30; i++) await run();
      else {
        // On a saturated machine the first 300 ms may complete no answer at all (cold JIT, no CPU share):
        // that is retried; a non-2xx answer or a socket error is a broken setup and fails at once.
        for (let attempt = 1; ; attempt++) {
          const w = await readRound(run, c.concurrency, 300);
          if (w.non2xx || w.errors || (!w.ok && attempt === 10))
            throw new Error(`${side} ${run.path} during warm-up: ${describeLoad(w)}`);
          if (w.ok) break;
        }
      }
    }
  }
  const out: Measured[] = cases.map((c) => ({
    ...c,
    rps: { svc: [], ba: [] },
    reads: { svc: [], ba: [] },
    cpu: { svc: [], ba: [] },
  }));
  for (let r = 0; r < o.rounds; r++) {
    for (const [i, c] of cases.entries()) {
      const m = out[i]!;
      // Alternate which side goes first, so neither always follows the other's garbage.
      const order = r % 2 === 0 ? (['svc', 'ba'] as const) : (['ba', 'svc'] as const);
      for (const side of order) {
        const run = c[side];
        // The lead-in lets the runtime settle after the previous case (its garbage, a cold path)
        // so a round measures this case's steady state; it is the same for both sides.
        if (o.settleMs > 0) {
          if (typeof run === 'function') await measure(run, c.concurrency, o.settleMs);
          else await readRound(run, c.concurrency, o.settleMs);
        }
        const pids = (c.pids ?? o.pids)[side];
        const cpu0 = cpuUsOf(pids);
        let ops: number;
        if (typeof run === 'function') {
          const res = await measure(run, c.concurrency, o.roundMs);
          m.rps[side].push(res.rps);
          ops = res.latMs.length;
        } else {
          const res = await readRound(run, c.concurrency, o.roundMs);
          m.reads[side].push(res);
          m.rps[side].push(res.rps);
          // Every answer the server sent in the window cost CPU, not only the 2xx ones.
          ops = res.ok + res.non2xx;
        }
        m.cpu[side].push((cpuUsOf(pids) - cpu0) / ops);
      }
    }
  }
  return out;
}
