/**
 * The webhook outbox: one `INSERT … SELECT` that queues a delivery for every
 * enabled endpoint subscribed to an event type. It runs in the same batch as
 * the event's own insert (events/auth-events.ts), so the event and its
 * deliveries commit together or not at all. With no endpoints it inserts
 * nothing and costs one statement in a batch that is already one round trip.
 * It reads every endpoint row: a table of a few admin-made rows, not one that
 * grows with traffic (test/api/db/query-plans.test.ts counts it as bounded).
 */
import { sql } from 'drizzle-orm';
import { preparedStatement } from '../../db/driver/prepared-batch.js';
import { prepared } from '../../db/driver/prepared.js';

/** Every event type; `event_types` is always a JSON array, `["*"]` for all. */
export const ALL_EVENTS = '*';

/** The delivery body (Standard Webhooks: `type`, `timestamp`, `data`). */
export interface WebhookPayload {
  type: string;
  timestamp: string;
  data: {
    id: string;
    type: string;
    userId: string | null;
    actorUserId: string | null;
    sessionId: string | null;
    ipAddress: string | null;
    userAgent: string | null;
    metadata: Record<string, unknown> | null;
    createdAt: string;
  };
}

/** A delivery id from SQLite's own randomness (128 bits, hex), like `randomId()`'s width. */
export const enqueueDeliveries = prepared((db) =>
  preparedStatement(
    db,
    sql`INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at, updated_at)
      SELECT 'msg_' || lower(hex(randomblob(16))), webhook_endpoints.id, ${sql.placeholder('eventId')}, ${sql.placeholder('type')}, ${sql.placeholder('payload')}, 'pending', 0, ${sql.placeholder('nowMs')}, ${sql.placeholder('nowMs')}, ${sql.placeholder('nowMs')}
      FROM webhook_endpoints
      WHERE webhook_endpoints.enabled = 1
        AND EXISTS (SELECT 1 FROM json_each(webhook_endpoints.event_types) WHERE json_each.value IN ('*', ${sql.placeholder('type')}))`,
  ),
);
