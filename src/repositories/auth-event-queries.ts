/**
 * Read queries over `auth_events` (contract §3.15, §3.16). Everything is
 * filtered, paginated or aggregated in SQL; the table is never loaded whole.
 */
import { and, count, desc, eq, gte, inArray, lte, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { authEvents, type AuthEventRow } from '../db/schema.js';

/** `type LIKE '%_suspicious'` with the underscore taken literally. */
export const suspiciousTypeSql = sql`${authEvents.type} LIKE '%\\_suspicious' ESCAPE '\\'`;
export const anomalyTypeSql = sql`(${suspiciousTypeSql} OR ${authEvents.type} = 'account_locked')`;

export interface EventFilter {
  userId?: string;
  actorUserId?: string;
  sessionId?: string;
  /** Exact client IP as recorded (the admin console's IP filter). */
  ipAddress?: string;
  /** Exact types. */
  types?: string[];
  /** Also match every `_suspicious` type. */
  suspicious?: boolean;
  fromMs?: number;
  toMs?: number;
}

export function eventWhere(f: EventFilter): SQL | undefined {
  const typeConds: SQL[] = [];
  if (f.types?.length) typeConds.push(inArray(authEvents.type, f.types));
  if (f.suspicious) typeConds.push(suspiciousTypeSql);
  return and(
    f.userId ? eq(authEvents.userId, f.userId) : undefined,
    f.actorUserId ? eq(authEvents.actorUserId, f.actorUserId) : undefined,
    f.sessionId ? eq(authEvents.sessionId, f.sessionId) : undefined,
    f.ipAddress ? eq(authEvents.ipAddress, f.ipAddress) : undefined,
    typeConds.length ? or(...typeConds) : undefined,
    f.fromMs !== undefined ? gte(authEvents.createdAt, new Date(f.fromMs)) : undefined,
    f.toMs !== undefined ? lte(authEvents.createdAt, new Date(f.toMs)) : undefined,
  );
}

/** Newest first; `id` breaks ties so pages never overlap or skip. */
export async function queryEvents(
  db: Db,
  f: EventFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: AuthEventRow[]; total: number }> {
  const where = eventWhere(f);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(authEvents)
      .where(where)
      .orderBy(desc(authEvents.createdAt), desc(authEvents.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(authEvents).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

const ANOMALY_LIMIT = 50;

/** A user's recent suspicious events and the distinct IPs and agents seen in their events. */
export async function userAnomalies(db: Db, userId: string) {
  const [events, ips, agents] = await Promise.all([
    db
      .select()
      .from(authEvents)
      .where(and(eq(authEvents.userId, userId), anomalyTypeSql))
      .orderBy(desc(authEvents.createdAt), desc(authEvents.id))
      .limit(ANOMALY_LIMIT),
    db
      .selectDistinct({ v: authEvents.ipAddress })
      .from(authEvents)
      .where(and(eq(authEvents.userId, userId), sql`${authEvents.ipAddress} IS NOT NULL`))
      .limit(ANOMALY_LIMIT),
    db
      .selectDistinct({ v: authEvents.userAgent })
      .from(authEvents)
      .where(and(eq(authEvents.userId, userId), sql`${authEvents.userAgent} IS NOT NULL`))
      .limit(ANOMALY_LIMIT),
  ]);
  return { events, ips: ips.map((r) => r.v!).sort(), agents: agents.map((r) => r.v!).sort() };
}

export async function listAnomalies(db: Db, limit: number): Promise<{ rows: AuthEventRow[]; total: number }> {
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(authEvents)
      .where(anomalyTypeSql)
      .orderBy(desc(authEvents.createdAt), desc(authEvents.id))
      .limit(limit),
    db.select({ n: count() }).from(authEvents).where(anomalyTypeSql),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** `type → count` in a time window (GROUP BY in SQL). */
export async function countByType(
  db: Db,
  fromMs: number,
  toMs: number,
  types?: readonly string[],
): Promise<{ type: string; count: number }[]> {
  return db
    .select({ type: authEvents.type, count: count() })
    .from(authEvents)
    .where(
      and(
        gte(authEvents.createdAt, new Date(fromMs)),
        lte(authEvents.createdAt, new Date(toMs)),
        types ? inArray(authEvents.type, [...types]) : undefined,
      ),
    )
    .groupBy(authEvents.type)
    .orderBy(desc(count()), authEvents.type);
}

/** `(bucket start, type) → count`; buckets are UTC hours or days computed in SQL. */
export async function countByBucketAndType(
  db: Db,
  fromMs: number,
  toMs: number,
  bucketMs: number,
): Promise<{ bucket: number; type: string; count: number }[]> {
  const size = sql.raw(String(Math.trunc(bucketMs)));
  const bucket = sql<number>`(${authEvents.createdAt} / ${size}) * ${size}`;
  return db
    .select({ bucket, type: authEvents.type, count: count() })
    .from(authEvents)
    .where(and(gte(authEvents.createdAt, new Date(fromMs)), lte(authEvents.createdAt, new Date(toMs))))
    .groupBy(bucket, authEvents.type);
}

/**
 * Per bucket: issued sessions by sign-in method (`metadata.method`) and OTP
 * sends by channel (`metadata.channel`), for the sign-in health charts.
 * Grouped in SQL, so rows are bounded by buckets × methods, never by events.
 */
export async function countSignInDetailByBucket(
  db: Db,
  fromMs: number,
  toMs: number,
  bucketMs: number,
): Promise<{ bucket: number; type: string; detail: string | null; count: number }[]> {
  const size = sql.raw(String(Math.trunc(bucketMs)));
  const bucket = sql<number>`(${authEvents.createdAt} / ${size}) * ${size}`;
  const detail = sql<
    string | null
  >`json_extract(${authEvents.metadata}, CASE WHEN ${authEvents.type} = 'session_issued' THEN '$.method' ELSE '$.channel' END)`;
  return db
    .select({ bucket, type: authEvents.type, detail, count: count() })
    .from(authEvents)
    .where(
      and(
        gte(authEvents.createdAt, new Date(fromMs)),
        lte(authEvents.createdAt, new Date(toMs)),
        inArray(authEvents.type, ['session_issued', 'otp_sent']),
      ),
    )
    .groupBy(bucket, authEvents.type, detail);
}
