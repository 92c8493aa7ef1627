/**
 * Events and limits: the audit log (`auth_events`), failed attempts and the
 * lockouts they lead to, and the rate limiter's counters. Re-exported by
 * `src/db/schema.ts`.
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { createdAt, ts } from './columns.js';
import { users } from './users.js';

export const authEvents = sqliteTable(
  'auth_events',
  {
    id: text().primaryKey(),
    type: text().notNull(),
    userId: text().references(() => users.id, { onDelete: 'set null' }),
    actorUserId: text(),
    sessionId: text(),
    ipAddress: text(),
    userAgent: text(),
    metadata: text({ mode: 'json' }).$type<Record<string, unknown> | null>(),
    createdAt: createdAt(),
  },
  (t) => [
    index('auth_events_user_created_idx').on(t.userId, t.createdAt),
    index('auth_events_type_created_idx').on(t.type, t.createdAt),
    index('auth_events_created_at_idx').on(t.createdAt),
    index('auth_events_actor_user_id_idx').on(t.actorUserId),
  ],
);

export const authFailures = sqliteTable(
  'auth_failures',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    subject: text().notNull(),
    type: text().notNull(),
    occurredAt: ts().notNull(),
  },
  (t) => [
    index('auth_failures_subject_occurred_idx').on(t.subject, t.occurredAt),
    // The maintenance purge removes failures older than the window by time alone.
    index('auth_failures_occurred_at_idx').on(t.occurredAt),
  ],
);

export const lockouts = sqliteTable(
  'lockouts',
  {
    subject: text().primaryKey(),
    lockedAt: ts().notNull(),
    lockedUntil: ts().notNull(),
    failureCount: integer().notNull(),
  },
  (t) => [index('lockouts_locked_until_idx').on(t.lockedUntil)],
);

export const rateLimitCounters = sqliteTable(
  'rate_limit_counters',
  {
    key: text().primaryKey(),
    windowStart: integer().notNull(),
    count: integer().notNull(),
    expiresAt: integer().notNull(),
  },
  (t) => [index('rate_limit_counters_expires_at_idx').on(t.expiresAt)],
);

export type AuthEventRow = typeof authEvents.$inferSelect;
