/**
 * Internal metrics (contract §3.16). Every figure is a SQL aggregate (COUNT,
 * GROUP BY type or time bucket); only the grouped rows — bounded by the
 * number of event types × buckets — reach memory, never the event table.
 */
import { count, gte } from 'drizzle-orm';
import type { Deps } from '../../deps.js';
import { sessions, users } from '../../db/schema.js';
import { countByBucketAndType, countByType, countSignInDetailByBucket } from '../../repositories/auth-event-queries.js';
import { activeSessionWhere } from '../../repositories/sessions.js';
import {
  CATEGORIES,
  categoryOf,
  LOGIN_FAILURE_TYPES,
  LOGIN_SUCCESS_TYPES,
  outcomeOf,
  SMS_REFUSAL_TYPES,
  type Category,
} from './categories.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
export const MAX_WINDOW_MS = { hour: 31 * DAY_MS, day: 366 * DAY_MS } as const;

type MetricsDeps = Pick<Deps, 'db' | 'database' | 'clock' | 'log'>;

export interface Window {
  fromMs: number;
  toMs: number;
}

const rate = (success: number, failed: number) => (success + failed === 0 ? 0 : success / (success + failed));

export async function eventSummary(deps: MetricsDeps, w: Window) {
  return countByType(deps.db, w.fromMs, w.toMs);
}

export async function loginStats(deps: MetricsDeps, w: Window) {
  const rows = await countByType(deps.db, w.fromMs, w.toMs, [...LOGIN_SUCCESS_TYPES, ...LOGIN_FAILURE_TYPES]);
  const success = rows
    .filter((r) => (LOGIN_SUCCESS_TYPES as readonly string[]).includes(r.type))
    .reduce((n, r) => n + r.count, 0);
  const failed = rows
    .filter((r) => (LOGIN_FAILURE_TYPES as readonly string[]).includes(r.type))
    .reduce((n, r) => n + r.count, 0);
  return { success, failed, successRate: rate(success, failed) };
}

export async function groupedSummary(deps: MetricsDeps, w: Window, groupBy: 'type' | 'category') {
  const rows = await countByType(deps.db, w.fromMs, w.toMs);
  const outcomes = { success: 0, failed: 0, suspicious: 0 };
  const groups = new Map<string, number>();
  for (const r of rows) {
    const key = groupBy === 'type' ? r.type : categoryOf(r.type);
    groups.set(key, (groups.get(key) ?? 0) + r.count);
    const o = outcomeOf(r.type);
    if (o) outcomes[o] += r.count;
  }
  const summary = [...groups]
    .map(([key, n]) => ({ key, count: n }))
    .sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
  return { summary, outcomes };
}

const emptyCategories = () => Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as Record<Category, number>;

/**
 * Contiguous UTC buckets from the one holding `from` to the one holding `to`, zeros included.
 * Each bucket also carries its non-zero counts by type, issued sessions by
 * sign-in method and OTP sends by channel (the admin console's charts).
 */
export async function timeseries(deps: MetricsDeps, w: Window, interval: 'hour' | 'day') {
  const size = interval === 'hour' ? HOUR_MS : DAY_MS;
  const [rows, details] = await Promise.all([
    countByBucketAndType(deps.db, w.fromMs, w.toMs, size),
    countSignInDetailByBucket(deps.db, w.fromMs, w.toMs, size),
  ]);
  const first = Math.floor(w.fromMs / size) * size;
  const last = Math.floor(w.toMs / size) * size;
  const buckets = new Map<number, Bucket>();
  for (let start = first; start <= last; start += size) {
    buckets.set(start, {
      start: new Date(start).toISOString(),
      success: 0,
      failed: 0,
      total: 0,
      categories: emptyCategories(),
      byType: {},
      signInsByMethod: {},
      otpSendsByChannel: {},
    });
  }
  for (const r of rows) {
    const b = buckets.get(Number(r.bucket));
    if (!b) continue;
    b.total += r.count;
    b.categories[categoryOf(r.type)] += r.count;
    b.byType[r.type] = (b.byType[r.type] ?? 0) + r.count;
    const o = outcomeOf(r.type);
    if (o === 'success') b.success += r.count;
    if (o === 'failed') b.failed += r.count;
  }
  for (const r of details) {
    const b = buckets.get(Number(r.bucket));
    if (!b) continue;
    const target = r.type === 'session_issued' ? b.signInsByMethod : b.otpSendsByChannel;
    const key = typeof r.detail === 'string' && r.detail ? r.detail : 'unknown';
    target[key] = (target[key] ?? 0) + r.count;
  }
  return { interval, buckets: [...buckets.values()] };
}

interface Bucket {
  start: string;
  success: number;
  failed: number;
  total: number;
  categories: Record<Category, number>;
  byType: Record<string, number>;
  signInsByMethod: Record<string, number>;
  otpSendsByChannel: Record<string, number>;
}

/** `page_count × page_size`; null when the database does not answer the pragmas (some remote servers). */
export async function databaseSizeBytes(deps: MetricsDeps): Promise<number | null> {
  try {
    const [pages, size] = await Promise.all([
      deps.database.client.execute('PRAGMA page_count'),
      deps.database.client.execute('PRAGMA page_size'),
    ]);
    const n = Number(pages.rows[0]?.[0]);
    const s = Number(size.rows[0]?.[0]);
    return Number.isFinite(n) && Number.isFinite(s) ? n * s : null;
  } catch (err) {
    deps.log.log('warn', 'database size unavailable', { error: (err as Error).message });
    return null;
  }
}

export async function dashboard(deps: MetricsDeps) {
  const nowMs = deps.clock.now();
  const day = { fromMs: nowMs - DAY_MS, toMs: nowMs };
  const [[totalUsers], [activeSessions], [newUsers], logins, usage, databaseSize] = await Promise.all([
    deps.db.select({ n: count() }).from(users),
    deps.db.select({ n: count() }).from(sessions).where(activeSessionWhere(nowMs)),
    deps.db
      .select({ n: count() })
      .from(users)
      .where(gte(users.createdAt, new Date(day.fromMs))),
    loginStats(deps, day),
    countByType(deps.db, day.fromMs, day.toMs, ['otp_sent', 'webauthn_login_success', ...SMS_REFUSAL_TYPES]),
    databaseSizeBytes(deps),
  ]);
  const used = (type: string) => usage.find((r) => r.type === type)?.count ?? 0;
  return {
    totalUsers: totalUsers?.n ?? 0,
    activeSessions: activeSessions?.n ?? 0,
    newUsers24h: newUsers?.n ?? 0,
    loginSuccess24h: logins.success,
    loginFailed24h: logins.failed,
    successRate24h: logins.successRate,
    otpUsage24h: used('otp_sent'),
    passkeyUsage24h: used('webauthn_login_success'),
    // SMS sends the pumping guard refused: allowlist and budget refusals.
    smsRefused24h: SMS_REFUSAL_TYPES.reduce((n, type) => n + used(type), 0),
    databaseSize,
  };
}
