/**
 * Fixed-window counters (contract §2.13, §3.19). The database store shares
 * counts between instances with one atomic upsert; the memory store has the
 * same semantics for a single process.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';

export interface WindowHit {
  count: number;
  /** Window end, epoch ms. */
  resetAtMs: number;
}

export interface RateLimitStore {
  hit(key: string, windowMs: number, nowMs: number): Promise<WindowHit>;
}

export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  count: number;
  resetSeconds: number;
}

export interface RateLimiter {
  readonly disabled: boolean;
  hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<LimitDecision>;
}

export function createDatabaseStore(db: Db): RateLimitStore {
  return {
    async hit(key, windowMs, nowMs) {
      const windowStart = Math.floor(nowMs / windowMs) * windowMs;
      const expiresAt = windowStart + windowMs;
      const rows = await db.all<{ count: number; expires_at: number }>(sql`
        INSERT INTO rate_limit_counters (key, window_start, count, expires_at)
        VALUES (${key}, ${windowStart}, 1, ${expiresAt})
        ON CONFLICT(key) DO UPDATE SET
          count = CASE WHEN window_start = excluded.window_start THEN count + 1 ELSE 1 END,
          window_start = excluded.window_start,
          expires_at = excluded.expires_at
        RETURNING count, expires_at`);
      const row = rows[0]!;
      return { count: Number(row.count), resetAtMs: Number(row.expires_at) };
    },
  };
}

export function createMemoryStore(maxKeys = 100_000): RateLimitStore {
  const map = new Map<string, { windowStart: number; count: number }>();
  return {
    async hit(key, windowMs, nowMs) {
      const windowStart = Math.floor(nowMs / windowMs) * windowMs;
      const cur = map.get(key);
      const count = cur && cur.windowStart === windowStart ? cur.count + 1 : 1;
      map.delete(key);
      map.set(key, { windowStart, count });
      if (map.size > maxKeys) map.delete(map.keys().next().value!);
      return { count, resetAtMs: windowStart + windowMs };
    },
  };
}

export function createRateLimiter(store: RateLimitStore, disabled: boolean): RateLimiter {
  return {
    disabled,
    async hit(key, limit, windowMs, nowMs) {
      const { count, resetAtMs } = await store.hit(key, windowMs, nowMs);
      return {
        allowed: count <= limit,
        limit,
        count,
        remaining: Math.max(0, limit - count),
        resetSeconds: Math.max(0, Math.ceil((resetAtMs - nowMs) / 1000)),
      };
    },
  };
}
