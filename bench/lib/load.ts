/**
 * The load generator every bench shares: N workers call one function for a
 * fixed time; rounds of several cases alternate so machine noise (other
 * engineers' tests on the same 2 cores) spreads over all of them.
 */
import { cpus, loadavg } from 'node:os';

export interface RoundResult {
  /** Requests per second over the round. */
  rps: number;
  /** Per-request latency, milliseconds, sorted ascending. */
  latMs: number[];
  /**
   * CPU time this process spent per request (user + system), microseconds.
   * On a machine shared with other jobs it moves far less than req/s: it is
   * the cost of a request, whatever share of the cores the process got.
   */
  cpuUsPerReq: number;
}

export const fmt = (n: number, digits = 0) => n.toFixed(digits);
export const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
export const median = (xs: number[]) =>
  pct(
    [...xs].sort((a, b) => a - b),
    50,
  );
export const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const bun = (globalThis as { Bun?: { version: string } }).Bun;
export const machine = () =>
  `${bun ? `Bun ${bun.version}` : `Node ${process.version}`}, ${cpus().length} CPU(s) (${cpus()[0]?.model.trim()})`;

/** Calls `call` from `concurrency` workers for `durationMs`; a call that throws fails the round. */
export async function measure(
  call: () => Promise<void>,
  concurrency: number,
  durationMs: number,
): Promise<RoundResult> {
  const lat: number[] = [];
  const end = performance.now() + durationMs;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      await call();
      lat.push(performance.now() - t0);
    }
  };
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const cpu = process.cpuUsage(cpu0);
  return {
    rps: lat.length / ((performance.now() - start) / 1000),
    latMs: lat.sort((a, b) => a - b),
    cpuUsPerReq: (cpu.user + cpu.system) / lat.length,
  };
}

/** A response must be `status`; its body is drained so the connection is reused. */
export async function expectStatus(res: Response, status = 200): Promise<void> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`unexpected ${res.status}: ${text.slice(0, 200)}`);
}

/** Median and spread (min–max) of several rounds' req/s. */
export function summary(rounds: number[]): { median: number; min: number; max: number; text: string } {
  const m = median(rounds);
  const min = Math.min(...rounds);
  const max = Math.max(...rounds);
  return {
    median: m,
    min,
    max,
    text: `${fmt(m)} req/s (rounds ${rounds.map((r) => fmt(r)).join(', ')}; spread ${fmt(min)}–${fmt(max)})`,
  };
}
