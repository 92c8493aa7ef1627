import { describe, expect, it } from 'vitest';
import { createRefreshDedup, refreshKey, REFRESH_DEDUP_MAX_ENTRIES } from '../../../adapter/core/refresh.js';

describe('refresh dedup (contract §5.7)', () => {
  it('keys by the hex SHA-256 of the raw token', () => {
    expect(refreshKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('shares an in-flight call and replays a success for 5 s only', async () => {
    const d = createRefreshDedup();
    let calls = 0;
    const call = async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 5));
      return { success: true, value: calls };
    };
    const results = await Promise.all(Array.from({ length: 50 }, () => d.run('t', 1_000, call)));
    expect(new Set(results.map((r) => r.value))).toEqual(new Set([1]));
    expect((await d.run('t', 5_999, call)).value).toBe(1);
    expect((await d.run('t', 6_000, call)).value).toBe(2);
    expect(calls).toBe(2);
    expect(d.size().inflight).toBe(0);
  });

  it('never caches failures', async () => {
    const d = createRefreshDedup();
    let calls = 0;
    const call = async () => ({ success: false, value: ++calls });
    await d.run('t', 0, call);
    await d.run('t', 1, call);
    expect(calls).toBe(2);
    expect(d.size().recent).toBe(0);
  });

  it('removes an in-flight entry even when the call rejects', async () => {
    const d = createRefreshDedup();
    await expect(d.run('t', 0, async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(d.size().inflight).toBe(0);
  });

  it('caps the recent map at 10 000 entries', async () => {
    const d = createRefreshDedup();
    for (let i = 0; i < REFRESH_DEDUP_MAX_ENTRIES + 5; i++)
      await d.run(`t${i}`, 0, async () => ({ success: true, value: i }));
    expect(d.size().recent).toBe(REFRESH_DEDUP_MAX_ENTRIES);
  });

  it('caps the in-flight map at 10 000 entries too, and empties it once the calls settle', async () => {
    const d = createRefreshDedup();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const pending = Array.from({ length: REFRESH_DEDUP_MAX_ENTRIES + 5 }, (_, i) =>
      d.run(`p${i}`, 0, async () => (await gate, { success: false, value: i })),
    );
    expect(d.size().inflight).toBe(REFRESH_DEDUP_MAX_ENTRIES);
    release();
    await Promise.all(pending);
    expect(d.size()).toEqual({ recent: 0, inflight: 0 });
  });

  it('replays a success to a caller arriving within 5 s even after the call settled, then forgets it', async () => {
    const d = createRefreshDedup();
    let calls = 0;
    const call = async () => ({ success: true, value: ++calls });
    expect((await d.run('t', 10_000, call)).value).toBe(1);
    expect((await d.run('t', 14_999, call)).value).toBe(1);
    expect((await d.run('t', 15_000, call)).value).toBe(2);
    expect((await d.run('other', 15_000, call)).value).toBe(3);
  });
});
