/**
 * Fixed-window counters (contract §2.13, §3.19). The database store shares
 * counts between instances with one atomic upsert; the memory store has the
 * same semantics for a single process.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { prepared } from '../../db/driver/prepared.js';
import { rateLimitCounters } from '../../db/schema.js';

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

/** One atomic upsert per hit, prepared once per database (built per request it cost more than SQLite). */
const upsertHit = prepared((db) =>
  db
    .insert(rateLimitCounters)
    .values({
      key: sql.placeholder('key'),
      windowStart: sql.placeholder('windowStart'),
      count: 1,
      expiresAt: sql.placeholder('expiresAt'),
    })
    .onConflictDoUpdate({
      target: rateLimitCounters.key,
      set: {
        count: sql`CASE WHEN ${rateLimitCounters.windowStart} = excluded.window_start THEN ${rateLimitCounters.count} + 1 ELSE 1 END`,
        windowStart: sql`excluded.window_start`,
        expiresAt: sql`excluded.expires_at`,
      },
    })
    .returning({ count: rateLimitCounters.count, expiresAt: rateLimitCounters.expiresAt })
    .prepare(),
);

export function createDatabaseStore(db: Db): RateLimitStore {
  return {
    async hit(key, windowMs, nowMs) {
      const windowStart = Math.floor(nowMs / windowMs) * windowMs;
      const expiresAt = windowStart + windowMs;
      const row = (await upsertHit(db).get({ key, windowStart, expiresAt }))!;
      return { count: row.count, resetAtMs: row.expiresAt };
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
