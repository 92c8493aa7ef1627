/** Injected time source. Every service reads time through it so tests can move it. */
export interface Clock {
  /** Current time in epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests can set and advance. */
export function createManualClock(startMs = Date.UTC(2026, 0, 1, 12)): Clock & {
  set(ms: number): void;
  advance(ms: number): void;
} {
  let current = startMs;
  return {
    now: () => current,
    set: (ms) => {
      current = ms;
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

export const toIso = (ms: number | Date | null | undefined): string | null =>
  ms == null ? null : new Date(typeof ms === 'number' ? ms : ms.getTime()).toISOString();
