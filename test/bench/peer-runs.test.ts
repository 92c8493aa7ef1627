import { describe, expect, it } from 'vitest';
import {
  TARGETS,
  cpuUsFromStat,
  medianOf,
  formatSummary,
  summarizeRuns,
  targetOf,
  type LineRun,
} from '../../bench/lib/peer-runs.js';

const line = (key: LineRun['key'], ratio: number, svc = 100, ba = 300, invalid = false): LineRun => ({
  key,
  label: key,
  names: ['svc', 'Better Auth'],
  ratio,
  cpuUsPerOp: { svc, ba },
  invalid,
});

describe('bench:peers runs: targets and the median verdict', () => {
  it('keeps the targets the comparison is judged on in one table', () => {
    expect(TARGETS).toEqual({
      guarded: { node: 12, bun: 8 },
      me: { node: 5, bun: 5 },
      'sign-in': { node: 1.5, bun: 1.5, stretch: 2 },
      refresh: { node: 1, bun: 1 },
    });
    expect(targetOf('guarded', 'bun')).toBe(8);
    expect(targetOf('ceiling', 'node')).toBeNull();
  });

  it('judges on the median of the runs, not the best or the last', () => {
    // One lucky run above the target and a last run above it: the median (4.9) is below.
    const runs = [[line('me', 6.1)], [line('me', 4.9)], [line('me', 4.2)]];
    const [me] = summarizeRuns('node', runs);
    expect(me!.ratios).toEqual([6.1, 4.9, 4.2]);
    expect(me!.medianRatio).toBe(4.9);
    expect(me!.pass).toBe(false);
    // The median passes where the last run (4.0) and the mean (4.87) would not.
    const [ok] = summarizeRuns('node', [[line('me', 5.5)], [line('me', 5.1)], [line('me', 4.0)]]);
    expect(ok!.medianRatio).toBe(5.1);
    expect(ok!.pass).toBe(true);
  });

  it('uses the runtime target, and the stretch only as a note', () => {
    const runs = [[line('guarded', 9)], [line('guarded', 10)], [line('guarded', 11)]];
    expect(summarizeRuns('bun', runs)[0]!.pass).toBe(true);
    expect(summarizeRuns('node', runs)[0]!.pass).toBe(false);
    const signIn = summarizeRuns('bun', [[line('sign-in', 1.6)]])[0]!;
    expect(signIn.pass).toBe(true);
    expect(formatSummary('bun', [signIn])).toContain('target ≥ 1.5× met (stretch 2× not met)');
  });

  it('leaves invalid runs out of the median and says so', () => {
    const runs = [[line('refresh', 0.5, 1, 1, true)], [line('refresh', 1.3)], [line('refresh', 1.1)]];
    const [r] = summarizeRuns('node', runs);
    expect(r!.medianRatio).toBeCloseTo(1.2); // of two valid runs their mean, not the better one
    expect(r!.invalidRuns).toBe(1);
    expect(formatSummary('node', [r!])).toContain('1 INVALID run(s) left out');
    const [none] = summarizeRuns('node', [[line('refresh', 2, 1, 1, true)]]);
    expect(none!.pass).toBeNull();
    expect(formatSummary('node', [none!])).toContain('NO VALID RUN');
  });

  it('reports the median CPU per op of each side and their ratio', () => {
    const runs = [[line('me', 5, 100, 500)], [line('me', 5, 120, 480)], [line('me', 5, 400, 900)]];
    const [me] = summarizeRuns('node', runs);
    expect(me!.cpuUsPerOp).toEqual({ svc: 120, ba: 500 });
    expect(me!.cpuRatio).toBeCloseTo(500 / 120);
    expect(formatSummary('node', [me!])).toContain('svc 120 µs, Better Auth 500 µs; Better Auth ÷ svc 4.17×');
  });

  it('takes the middle of an odd count and the mean of the two middle values of an even one', () => {
    expect(medianOf([3, 1, 2])).toBe(2);
    expect(medianOf([4, 1])).toBe(2.5);
    expect(medianOf([7])).toBe(7);
    expect(medianOf([])).toBeNaN();
  });

  it('reads utime + stime from /proc/<pid>/stat, whatever the command name holds', () => {
    // Fields after the name: state, ppid, pgrp, session, tty, tpgid, flags, minflt, cminflt, majflt, cmajflt, utime, stime.
    const stat = '4242 (node (a) b) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 11 0 1000';
    expect(cpuUsFromStat(stat)).toBe(3_000_000); // 300 ticks of 10 ms
  });
});
