/** The two-generation memo (common/memo.ts) behind the cookie, service-token and signed-token caches. */
import { describe, expect, it } from 'vitest';
import { generationalMemo } from '../../../common/memo.js';

describe('generationalMemo', () => {
  it('holds at most two generations and drops the oldest whole generation first', () => {
    const memo = generationalMemo<number, string>(3);
    for (let i = 0; i < 6; i++) memo.set(i, `v${i}`);
    expect(memo.size).toBe(6);
    expect([0, 1, 2, 3, 4, 5].map((k) => memo.get(k))).toEqual(['v0', 'v1', 'v2', 'v3', 'v4', 'v5']);
    memo.set(6, 'v6'); // a third generation begins: the first is gone
    expect(memo.size).toBe(4);
    expect([0, 1, 2].map((k) => memo.get(k))).toEqual([undefined, undefined, undefined]);
    expect([3, 4, 5, 6].map((k) => memo.get(k))).toEqual(['v3', 'v4', 'v5', 'v6']);
    for (let i = 7; i < 100; i++) memo.set(i, `v${i}`);
    expect(memo.size).toBeLessThanOrEqual(6);
    expect(memo.get(99)).toBe('v99');
  });

  it('answers the newest value of a key set twice', () => {
    const memo = generationalMemo<string, number>(2);
    memo.set('a', 1);
    memo.set('b', 2);
    memo.set('a', 3); // lands in the new generation
    expect(memo.get('a')).toBe(3);
  });
});
