/**
 * Refresh dedup (contract §5.7): process-wide, keyed by the hex SHA-256 of the
 * raw refresh token. Lookup order: a success younger than 5 s is replayed with
 * no upstream call; an in-flight call is shared; otherwise a new call starts.
 * Only successes are remembered. Both maps are capped at 10 000 entries
 * (oldest evicted first) and expired successes are swept at most every 5 s.
 */
import { sha256 } from '@noble/hashes/sha2';
import { toHex, utf8 } from '../../common/encoding.js';

export const REFRESH_REPLAY_MS = 5_000;
export const REFRESH_DEDUP_MAX_ENTRIES = 10_000;

/** What a refresh call produced; `success` marks the outcomes worth replaying. */
export interface RefreshOutcome<T> {
  success: boolean;
  value: T;
}

export interface RefreshDedup {
  run<T>(refreshToken: string, nowMs: number, call: () => Promise<RefreshOutcome<T>>): Promise<RefreshOutcome<T>>;
  /** Entry counts (tests and diagnostics). */
  size(): { recent: number; inflight: number };
}

export const refreshKey = (refreshToken: string): string => toHex(sha256(utf8(refreshToken)));

function capped<K, V>(map: Map<K, V>, key: K, value: V) {
  if (map.size >= REFRESH_DEDUP_MAX_ENTRIES && !map.has(key)) map.delete(map.keys().next().value!);
  map.set(key, value);
}

export function createRefreshDedup(): RefreshDedup {
  const recent = new Map<string, { atMs: number; outcome: RefreshOutcome<unknown> }>();
  const inflight = new Map<string, Promise<RefreshOutcome<unknown>>>();
  let lastSweepMs = 0;

  function sweep(nowMs: number) {
    if (nowMs - lastSweepMs < REFRESH_REPLAY_MS && nowMs >= lastSweepMs) return;
    lastSweepMs = nowMs;
    for (const [k, e] of recent) if (nowMs - e.atMs >= REFRESH_REPLAY_MS || nowMs < e.atMs) recent.delete(k);
  }

  return {
    run<T>(refreshToken: string, nowMs: number, call: () => Promise<RefreshOutcome<T>>) {
      sweep(nowMs);
      const key = refreshKey(refreshToken);
      const hit = recent.get(key);
      if (hit && nowMs - hit.atMs < REFRESH_REPLAY_MS && nowMs >= hit.atMs)
        return Promise.resolve(hit.outcome as RefreshOutcome<T>);
      const shared = inflight.get(key);
      if (shared) return shared as Promise<RefreshOutcome<T>>;
      const started = call()
        .then((outcome) => {
          if (outcome.success) capped(recent, key, { atMs: nowMs, outcome });
          return outcome;
        })
        .finally(() => inflight.delete(key));
      capped(inflight, key, started as Promise<RefreshOutcome<unknown>>);
      return started;
    },
    size: () => ({ recent: recent.size, inflight: inflight.size }),
  };
}

/** The one process-wide cache shared by every adapter instance, both transports and ensureCookies. */
export const processRefreshDedup: RefreshDedup = createRefreshDedup();
