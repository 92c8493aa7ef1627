/**
 * Event webhooks (Standard Webhooks): the endpoints an admin registers and the
 * outbox of deliveries. A delivery row is written in the same batch as the
 * auth event it carries (services/events/auth-events.ts), so a crash never
 * leaves an event without its deliveries. Re-exported by `src/db/schema.ts`.
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { createdAt, ts, updatedAt } from './columns.js';

export const webhookEndpoints = sqliteTable('webhook_endpoints', {
  id: text().primaryKey(),
  url: text().notNull(),
  /** JSON array of event types, or the text `*` for every event. */
  eventTypes: text().notNull(),
  description: text(),
  /** The signing secret, AES-GCM sealed (crypto/secret-box.ts): it is needed in clear to sign. */
  secretCiphertext: text().notNull(),
  secretIv: text().notNull(),
  /** The secret before the last rotation; it signs alongside the new one until `previousSecretExpiresAt`. */
  previousSecretCiphertext: text(),
  previousSecretIv: text(),
  previousSecretExpiresAt: ts(),
  enabled: integer({ mode: 'boolean' }).notNull().default(true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    /** Also the `webhook-id` header: the same on every retry, so receivers can deduplicate. */
    id: text().primaryKey(),
    endpointId: text()
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text().notNull(),
    eventType: text().notNull(),
    /** The JSON body sent, fixed at enqueue time. */
    payload: text().notNull(),
    /** `pending`, `succeeded` or `failed`. */
    status: text().notNull(),
    attempts: integer().notNull().default(0),
    /** When the row is next due; while a sender holds its lease, the lease's end. */
    nextAttemptAt: ts().notNull(),
    /** The claim of the sender holding the row; only that sender may record the outcome. */
    leaseId: text(),
    lastStatus: integer(),
    lastError: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.status, t.nextAttemptAt),
    index('webhook_deliveries_endpoint_created_idx').on(t.endpointId, t.createdAt),
    index('webhook_deliveries_created_idx').on(t.createdAt),
  ],
);

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
