/**
 * One line of one run of `npm run bench:peers` as printed (req/s of each side with the spread of the
 * rounds, the ratio against the target, and with `BENCH_RUNS` > 1 the CPU per op), and the `LineRun`
 * the summary of several runs folds (bench/lib/peer-runs.ts).
 */
import { fmt, median, summary } from './load.js';
import { describeLoad, type LoadResult } from './loadgen.js';
import type { LineKey, LineRun, Runtime } from './peer-runs.js';

export interface Measured {
  key: LineKey;
  label: string;
  names?: [string, string];
  target: number | null;
  rps: { svc: number[]; ba: number[] };
  /** The read rounds (empty for flows), to report their latency and any non-2xx answer. */
  reads: { svc: LoadResult[]; ba: LoadResult[] };
  /** CPU microseconds per operation of each measured round. */
  cpu: { svc: number[]; ba: number[] };
}

export function reportLine(runtime: Runtime, m: Measured, showCpu: boolean): { text: string; line: LineRun } {
  const s = summary(m.rps.svc);
  const b = summary(m.rps.ba);
  const ratio = s.median / b.median;
  // A read round with a non-2xx answer or a socket error does not count as a measurement.
  const broken = [...m.reads.svc, ...m.reads.ba].filter((x) => x.non2xx || x.errors);
  const detail = (side: 'svc' | 'ba') => {
    const rs = m.reads[side];
    if (!rs.length) return '';
    const mid = [...rs].sort((x, y) => x.rps - y.rps)[Math.floor(rs.length / 2)]!;
    return `; median round: ${describeLoad(mid)}`;
  };
  const verdict = broken.length
    ? `(INVALID: ${broken.length} round(s) with non-2xx answers or errors — ${describeLoad(broken[0]!)})`
    : m.target === null
      ? '(no target: see docs/performance.md)'
      : `(target ≥ ${m.target}× ${ratio >= m.target ? 'met' : 'NOT met'})`;
  const [left, right] = m.names ?? ['svc', 'Better Auth'];
  const cpuUsPerOp = { svc: median(m.cpu.svc), ba: median(m.cpu.ba) };
  const cpuLine = showCpu
    ? `\n    CPU per op (median round): ${left} ${fmt(cpuUsPerOp.svc)} µs, ${right} ${fmt(cpuUsPerOp.ba)} µs; ${right} ÷ ${left} ${fmt(cpuUsPerOp.ba / cpuUsPerOp.svc, 2)}×`
    : '';
  return {
    text: `  ${m.label}\n    ${left} ${s.text}${detail('svc')}\n    ${right} ${b.text}${detail('ba')}\n    ratio ${runtime} ${fmt(ratio, 2)}× ${verdict}${cpuLine}`,
    line: { key: m.key, label: m.label, names: [left, right], ratio, cpuUsPerOp, invalid: broken.length > 0 },
  };
}
