/**
 * Append-only auth event log (contract §2.10, §2.16). A failed write never
 * fails the request; it is logged. Metadata never holds secrets. Each event
 * goes in one batch with its webhook deliveries (services/webhooks/outbox.ts):
 * both commit or neither does.
 */
import type { Clock } from '../../clock.js';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { batchWrites, preparedWrite } from '../../db/driver/prepared-batch.js';
import { prepared } from '../../db/driver/prepared.js';
import { authEvents } from '../../db/schema.js';
import type { Logger } from '../../log.js';
import { randomId } from '../../crypto/random.js';
import { enqueueDeliveries, type WebhookPayload } from '../webhooks/outbox.js';

export interface AuthEventInput {
  type: string;
  userId?: string | null;
  actorUserId?: string | null;
  sessionId?: string | null;
  ipAddress?: string | null;
  userAgent?: string | null;
  metadata?: Record<string, unknown> | null;
}

export interface AuthEvents {
  record(event: AuthEventInput): Promise<void>;
  /** Called after an event queued at least one webhook delivery (the sender wakes up). */
  onDeliveriesQueued: (() => void) | null;
}

/**
 * Nearly every request writes one event: the insert is prepared once.
 * `metadata` and `createdAt` go in as driver values (JSON text or NULL, epoch ms):
 * a placeholder in `values()` would run the column encoder on null too.
 */
const insertEvent = prepared((db) =>
  preparedWrite(
    db
      .insert(authEvents)
      .values({
        id: sql.placeholder('id'),
        type: sql.placeholder('type'),
        userId: sql.placeholder('userId'),
        actorUserId: sql.placeholder('actorUserId'),
        sessionId: sql.placeholder('sessionId'),
        ipAddress: sql.placeholder('ipAddress'),
        userAgent: sql.placeholder('userAgent'),
        metadata: sql`${sql.placeholder('metadata')}`,
        createdAt: sql`${sql.placeholder('createdAt')}`,
      })
      .prepare(),
  ),
);

const isForeignKeyError = (err: unknown): boolean => {
  for (let e = err, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++)
    if (/FOREIGN KEY/i.test(e.message)) return true;
  return false;
};

/** The webhook body of one event: what the event row holds, with ISO times. */
function webhookPayload(id: string, e: AuthEventInput, createdAtMs: number): string {
  const timestamp = new Date(createdAtMs).toISOString();
  const payload: WebhookPayload = {
    type: e.type,
    timestamp,
    data: {
      id,
      type: e.type,
      userId: e.userId ?? null,
      actorUserId: e.actorUserId ?? null,
      sessionId: e.sessionId ?? null,
      ipAddress: e.ipAddress ?? null,
      userAgent: e.userAgent ?? null,
      metadata: e.metadata ?? null,
      createdAt: timestamp,
    },
  };
  return JSON.stringify(payload);
}

/** Rows a write changed, on libSQL (`rowsAffected`) and D1 (`meta.changes`). */
const changed = (result: unknown): number => {
  const r = result as { rowsAffected?: number; meta?: { changes?: number } } | undefined;
  return Number(r?.rowsAffected ?? r?.meta?.changes ?? 0);
};

export function createAuthEvents(db: Db, clock: Clock, log: Logger): AuthEvents {
  return {
    onDeliveriesQueued: null,
    async record(e) {
      try {
        const id = randomId();
        const createdAt = clock.now();
        const metadata = e.metadata ? JSON.stringify(e.metadata) : null;
        const results = await batchWrites(insertEvent(db).client, [
          insertEvent(db).bind({
            id,
            type: e.type,
            userId: e.userId ?? null,
            actorUserId: e.actorUserId ?? null,
            sessionId: e.sessionId ?? null,
            ipAddress: e.ipAddress ?? null,
            userAgent: e.userAgent ?? null,
            metadata,
            createdAt,
          }),
          enqueueDeliveries(db).bind({
            eventId: id,
            type: e.type,
            payload: webhookPayload(id, e, createdAt),
            nowMs: createdAt,
          }),
        ]);
        if (changed(results[1]) > 0) this.onDeliveriesQueued?.();
      } catch (err) {
        // A user id that no longer exists (FK) must not lose the event. drizzle wraps the
        // driver error ("Failed query: …"), so the constraint text is on `cause`.
        if (e.userId && isForeignKeyError(err)) {
          return this.record({ ...e, userId: null, metadata: { ...(e.metadata ?? {}), missingUserId: e.userId } });
        }
        log.log('error', 'auth event write failed', { type: e.type, error: (err as Error).message });
      }
    },
  };
}

/** Event fields from a request context. */
export const clientFields = (client: { ip: string | null; userAgent: string | null }) => ({
  ipAddress: client.ip,
  userAgent: client.userAgent,
});
