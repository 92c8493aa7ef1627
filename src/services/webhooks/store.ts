/** The SQL of the webhook tables (endpoints and the delivery outbox). */
import { and, count, desc, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import {
  webhookDeliveries,
  webhookEndpoints,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from '../../db/schema.js';
import { toIso } from '../../clock.js';

export const findEndpoint = async (db: Db, id: string): Promise<WebhookEndpointRow | undefined> =>
  (await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).limit(1))[0];

export const listEndpoints = (db: Db) =>
  db.select().from(webhookEndpoints).orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id));

export const findDelivery = async (db: Db, id: string): Promise<WebhookDeliveryRow | undefined> =>
  (await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).limit(1))[0];

export async function listDeliveries(
  db: Db,
  filter: { endpointId?: string | undefined; status?: string | undefined },
  page: { limit: number; offset: number },
) {
  const conditions: SQL[] = [];
  if (filter.endpointId) conditions.push(eq(webhookDeliveries.endpointId, filter.endpointId));
  if (filter.status) conditions.push(eq(webhookDeliveries.status, filter.status));
  const where = conditions.length ? and(...conditions) : undefined;
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(webhookDeliveries)
      .where(where)
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(webhookDeliveries).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** The event types of a row: always a JSON array (`["*"]` for every event). */
export function eventTypesOf(row: Pick<WebhookEndpointRow, 'eventTypes'>): string[] {
  try {
    const parsed = JSON.parse(row.eventTypes) as unknown;
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

/** The wire form of an endpoint: never a secret, sealed or not. */
export const endpointJson = (row: WebhookEndpointRow) => ({
  id: row.id,
  url: row.url,
  eventTypes: eventTypesOf(row),
  description: row.description ?? null,
  enabled: row.enabled,
  previousSecretExpiresAt: toIso(row.previousSecretExpiresAt),
  createdAt: toIso(row.createdAt)!,
  updatedAt: toIso(row.updatedAt)!,
});

export const deliveryJson = (row: WebhookDeliveryRow) => ({
  id: row.id,
  endpointId: row.endpointId,
  eventId: row.eventId,
  eventType: row.eventType,
  status: row.status as 'pending' | 'succeeded' | 'failed',
  attempts: row.attempts,
  nextAttemptAt: row.status === 'pending' ? toIso(row.nextAttemptAt) : null,
  lastStatus: row.lastStatus ?? null,
  lastError: row.lastError ?? null,
  createdAt: toIso(row.createdAt)!,
  updatedAt: toIso(row.updatedAt)!,
});
