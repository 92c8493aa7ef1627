/**
 * The verdict of `BENCH_RUNS=N npm run bench:peers`: the targets (one table),
 * the CPU time of the server processes, and the per-runtime summary of N runs
 * (each run's ratio, the median ratio judged against the target, and the CPU
 * per operation of each side). Pure except `processCpuUs`, so
 * test/bench/peer-runs.test.ts checks the arithmetic without timing anything.
 */
import { readFileSync } from 'node:fs';

export type Runtime = 'node' | 'bun';
export type LineKey =
  | 'ceiling'
  | 'guarded'
  | 'hop'
  | 'me'
  | 'me-api-free'
  | 'me-embedded'
  | 'me-upstream'
  | 'sign-in'
  | 'continue-with-email'
  | 'refresh';

/**
 * The targets of svc / Better Auth, judged on the median of the runs' ratios. Sign-in's 2× is a
 * stretch only: three RS256 signatures and a bcrypt hash per sign-in are required and put a floor
 * under its cost that 2× was below in some runs. Lines absent here have no target.
 */
export const TARGETS: Partial<Record<LineKey, { node: number; bun: number; stretch?: number }>> = {
  guarded: { node: 12, bun: 8 },
  me: { node: 5, bun: 5 },
  'sign-in': { node: 1.5, bun: 1.5, stretch: 2 },
  refresh: { node: 1, bun: 1 },
};

export const targetOf = (key: LineKey, runtime: Runtime): number | null => TARGETS[key]?.[runtime] ?? null;

/** Clock ticks per second of `/proc/<pid>/stat` (`getconf CLK_TCK`: 100 on every Linux we run on). */
const TICKS_PER_SECOND = 100;

/**
 * User + system CPU time of a process and all its threads, microseconds, from `/proc/<pid>/stat`
 * (fields 14 and 15, counted after the command name, which may contain spaces and parentheses).
 * Resolution is one tick (10 ms): a round must cost well over that for the figure to mean anything.
 * NaN where there is no procfs (not Linux) or the process is gone.
 */
export function processCpuUs(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    return cpuUsFromStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return NaN;
  }
}

export function cpuUsFromStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3, so utime (14) and stime (15) are at offsets 11 and 12.
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
}

/** CPU of a set of processes, summed (svc counts its app and its API process). */
export const cpuUsOf = (pids: (number | undefined)[]) => pids.reduce<number>((a, p) => a + processCpuUs(p), 0);

/**
 * The median of the runs: for an even count the mean of the two middle values (the rounds' `median`
 * in load.ts takes the upper one, which would judge two runs by the better).
 */
export function medianOf(xs: number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** One line of one run: the req/s ratio of its medians and each side's median CPU per operation. */
export interface LineRun {
  key: LineKey;
  label: string;
  names: [string, string];
  ratio: number;
  /** CPU microseconds per completed operation (a request, or a whole flow for sign-in). */
  cpuUsPerOp: { svc: number; ba: number };
  /** A round had non-2xx answers or errors: the run's ratio does not count. */
  invalid: boolean;
}

export interface LineSummary {
  key: LineKey;
  label: string;
  names: [string, string];
  ratios: number[];
  medianRatio: number;
  target: number | null;
  stretch: number | null;
  /** By the median of the valid runs; null without a target or without a valid run. */
  pass: boolean | null;
  cpuUsPerOp: { svc: number; ba: number };
  /** Better Auth's CPU per op ÷ svc's: above 1, svc spends less CPU per operation. */
  cpuRatio: number;
  invalidRuns: number;
}

/** Folds N runs of one runtime into one summary per line (lines keep the order of the first run). */
export function summarizeRuns(runtime: Runtime, runs: LineRun[][]): LineSummary[] {
  const keys = [...new Set(runs.flat().map((l) => l.key))];
  return keys.map((key) => {
    const lines = runs.flatMap((r) => r.filter((l) => l.key === key));
    const valid = lines.filter((l) => !l.invalid && Number.isFinite(l.ratio));
    const medianRatio = medianOf(valid.map((l) => l.ratio));
    const target = targetOf(key, runtime);
    const cpu = {
      svc: medianOf(valid.map((l) => l.cpuUsPerOp.svc)),
      ba: medianOf(valid.map((l) => l.cpuUsPerOp.ba)),
    };
    return {
      key,
      label: lines[0]!.label,
      names: lines[0]!.names,
      ratios: lines.map((l) => l.ratio),
      medianRatio,
      target,
      stretch: TARGETS[key]?.stretch ?? null,
      pass: target === null || !valid.length ? null : medianRatio >= target,
      cpuUsPerOp: cpu,
      cpuRatio: cpu.ba / cpu.svc,
      invalidRuns: lines.length - valid.length,
    };
  });
}

const x = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : 'n/a');
const us = (n: number) => (Number.isFinite(n) ? `${Math.round(n)} µs` : 'n/a');

/** The printed summary of one runtime. */
export function formatSummary(runtime: Runtime, lines: LineSummary[]): string {
  const out = [`\nsummary, ${runtime}: the median of ${lines[0]?.ratios.length ?? 0} run(s) judged against the target`];
  for (const l of lines) {
    const verdict =
      l.pass === null
        ? l.target === null
          ? 'no target'
          : 'NO VALID RUN'
        : `target ≥ ${l.target}× ${l.pass ? 'met' : 'NOT met'}${
            l.stretch !== null ? ` (stretch ${l.stretch}× ${l.medianRatio >= l.stretch ? 'met' : 'not met'})` : ''
          }`;
    out.push(
      `  ${l.key}: runs ${l.ratios.map(x).join(', ')}; median ${x(l.medianRatio)} — ${verdict}${
        l.invalidRuns ? ` (${l.invalidRuns} INVALID run(s) left out)` : ''
      }`,
      `    CPU per op (median of runs): ${l.names[0]} ${us(l.cpuUsPerOp.svc)}, ${l.names[1]} ${us(l.cpuUsPerOp.ba)}; ${l.names[1]} ÷ ${l.names[0]} ${x(l.cpuRatio)}`,
    );
  }
  return out.join('\n');
}
