/**
 * The refresh-token bcrypt pool of the Node and Bun entries
 * (common/node/bcrypt-pool.ts, `svc-auth/node`): it gives the inline hasher's answers, keeps
 * each answer with its job under concurrency, leaves the event loop free while
 * it hashes, and survives a worker that dies.
 */
import { compare, hash } from 'bcrypt-ts';
import { performance } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { createBcryptPool, POOL_WORKERS } from '../../../common/node/bcrypt-pool.js';

const pool = createBcryptPool(2);
afterAll(() => pool.close());

const token = (i: number) => `${'t'.repeat(40)}${String(i).padStart(3, '0')}`;

describe('bcrypt pool', () => {
  it('hashes and compares exactly as inline bcrypt does, both ways', async () => {
    const fromPool = await pool.hash(token(1), 4);
    expect(fromPool).toMatch(/^\$2[aby]\$04\$/);
    expect(await compare(token(1), fromPool)).toBe(true);
    const inline = await hash(token(2), 4);
    expect(await pool.compare(token(2), inline)).toBe(true);
    expect(await pool.compare(token(3), inline)).toBe(false);
    expect(await pool.compare(token(2), 'not a bcrypt hash')).toBe(false);
  });

  it('answers 40 concurrent jobs, each with its own result', async () => {
    const hashes = await Promise.all(Array.from({ length: 40 }, (_, i) => pool.hash(token(i), 4)));
    expect(new Set(hashes).size).toBe(40);
    const checks = await Promise.all(hashes.map((h, i) => pool.compare(token(i % 2 === 0 ? i : i + 100), h)));
    expect(checks).toEqual(hashes.map((_, i) => i % 2 === 0));
  });

  it('keeps the event loop free while it hashes (inline, the loop is busy throughout)', async () => {
    const busyWhile = async (work: () => Promise<unknown>) => {
      const start = performance.eventLoopUtilization();
      await work();
      return performance.eventLoopUtilization(start).utilization;
    };
    // Cost 10: ~100 ms of bcrypt. Inline it is all event-loop time; in the pool almost none is.
    const inline = await busyWhile(() => hash(token(5), 10));
    const pooled = await busyWhile(() => pool.hash(token(5), 10));
    expect(inline).toBeGreaterThan(0.8);
    expect(pooled).toBeLessThan(0.3);
  });

  it('refuses the jobs of a worker that died and answers the next one on a new worker', async () => {
    const one = createBcryptPool(1);
    try {
      const [first] = one[POOL_WORKERS]();
      const running = one.hash(token(6), 12); // ~400 ms: still running when its worker ends
      await new Promise((r) => setTimeout(r, 20));
      await first!.terminate(); // from outside, as a crash would end it
      await expect(running).rejects.toThrow(/bcrypt worker exited/);
      // The next job starts a new worker (lazily: a worker that cannot start never respawns in a loop).
      expect(await compare(token(7), await one.hash(token(7), 4))).toBe(true);
      const [replacement] = one[POOL_WORKERS]();
      expect(replacement).not.toBe(first);
    } finally {
      await one.close();
    }
  });

  it('refuses work after close', async () => {
    const closed = createBcryptPool(1);
    await closed.close();
    await expect(closed.hash(token(8), 4)).rejects.toThrow('bcrypt pool is closed');
  });
});
