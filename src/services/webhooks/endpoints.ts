/**
 * Admin management of webhook endpoints: create (the secret is returned this
 * once), list, patch, delete, rotate the secret, and resend a delivery. Every
 * write is audited (`webhook_*` events); no event or list carries a secret.
 */
import { and, eq, isNull, ne, or } from 'drizzle-orm';
import type { Deps } from '../../deps.js';
import { fail } from '../../errors.js';
import { randomId } from '../../crypto/random.js';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema.js';
import type { ActorFields } from '../events/actor.js';
import { webhookUrlProblem } from './endpoint-url.js';
import { ROTATION_OVERLAP_MS, sealWebhookSecret } from './secrets.js';
import { newWebhookSecret } from './signing.js';
import { endpointJson, eventTypesOf, findDelivery, findEndpoint, listEndpoints } from './store.js';

/** A validated create body (the route's schema fills the defaults). */
export interface EndpointInput {
  url: string;
  eventTypes: string[];
  description?: string | null | undefined;
  enabled: boolean;
}

/** A validated patch body: only the fields present change. */
export interface EndpointPatch {
  url?: string | undefined;
  eventTypes?: string[] | undefined;
  description?: string | null | undefined;
  enabled?: boolean | undefined;
}

type AdminDeps = Pick<Deps, 'db' | 'clock' | 'env' | 'events'>;

/** `invalid_request` naming the `url` field, as schema failures do (the value is not echoed). */
function checkUrl(deps: AdminDeps, url: string): void {
  const problem = webhookUrlProblem(url, deps.env);
  if (problem)
    throw fail('invalid_request', 'Request failed schema validation.', {
      details: { issues: [{ path: ['url'], code: 'custom', message: problem }] },
    });
}

/** `*` alone stands for every event; duplicates go. */
const normalizeTypes = (types: string[]) => (types.includes('*') ? ['*'] : [...new Set(types)]);

export async function createEndpoint(deps: AdminDeps, body: EndpointInput, actor: ActorFields) {
  checkUrl(deps, body.url);
  const id = randomId();
  const secret = newWebhookSecret();
  const sealed = await sealWebhookSecret(deps.env.secrets.totpEncryption, id, secret);
  const now = new Date(deps.clock.now());
  const eventTypes = normalizeTypes(body.eventTypes);
  await deps.db.insert(webhookEndpoints).values({
    id,
    url: body.url,
    eventTypes: JSON.stringify(eventTypes),
    description: body.description ?? null,
    secretCiphertext: sealed.ciphertext,
    secretIv: sealed.iv,
    enabled: body.enabled,
    createdAt: now,
    updatedAt: now,
  });
  await deps.events.record({
    type: 'webhook_endpoint_created',
    userId: actor.actorUserId,
    ...actor,
    metadata: { endpointId: id, url: body.url, eventTypes, enabled: body.enabled },
  });
  return { endpoint: endpointJson((await findEndpoint(deps.db, id))!), secret };
}

export async function listEndpointsForAdmin(deps: AdminDeps) {
  return (await listEndpoints(deps.db)).map(endpointJson);
}

export async function patchEndpoint(deps: AdminDeps, id: string, body: EndpointPatch, actor: ActorFields) {
  const before = await findEndpoint(deps.db, id);
  if (!before) throw fail('not_found', 'Webhook endpoint not found');
  const changedFields = Object.keys(body).filter((k) => body[k as keyof typeof body] !== undefined);
  if (!changedFields.length) throw fail('no_changes');
  if (body.url !== undefined) checkUrl(deps, body.url);
  const eventTypes = body.eventTypes ? normalizeTypes(body.eventTypes) : undefined;
  await deps.db
    .update(webhookEndpoints)
    .set({
      ...(body.url !== undefined ? { url: body.url } : {}),
      ...(eventTypes ? { eventTypes: JSON.stringify(eventTypes) } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      updatedAt: new Date(deps.clock.now()),
    })
    .where(eq(webhookEndpoints.id, id));
  const after = (await findEndpoint(deps.db, id))!;
  await deps.events.record({
    type: 'webhook_endpoint_updated',
    userId: actor.actorUserId,
    ...actor,
    metadata: {
      endpointId: id,
      changedFields,
      before: { url: before.url, eventTypes: eventTypesOf(before), enabled: before.enabled },
      after: { url: after.url, eventTypes: eventTypesOf(after), enabled: after.enabled },
    },
  });
  return endpointJson(after);
}

export async function deleteEndpoint(deps: AdminDeps, id: string, actor: ActorFields) {
  const existing = await findEndpoint(deps.db, id);
  if (!existing) throw fail('not_found', 'Webhook endpoint not found');
  // Its deliveries go with it (ON DELETE CASCADE): there is nowhere left to send them.
  await deps.db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  await deps.events.record({
    type: 'webhook_endpoint_deleted',
    userId: actor.actorUserId,
    ...actor,
    metadata: { endpointId: id, url: existing.url },
  });
  return { success: true as const, id };
}

/**
 * A new secret, returned once. The old one keeps signing alongside it for
 * `overlapSeconds` (default 24 h; 0 drops it at once, for a leaked secret).
 */
export async function rotateSecret(
  deps: AdminDeps,
  id: string,
  overlapSeconds: number | undefined,
  actor: ActorFields,
) {
  const existing = await findEndpoint(deps.db, id);
  if (!existing) throw fail('not_found', 'Webhook endpoint not found');
  const secret = newWebhookSecret();
  const sealed = await sealWebhookSecret(deps.env.secrets.totpEncryption, id, secret);
  const nowMs = deps.clock.now();
  const overlapMs = overlapSeconds === undefined ? ROTATION_OVERLAP_MS : overlapSeconds * 1000;
  const keepPrevious = overlapMs > 0;
  await deps.db
    .update(webhookEndpoints)
    .set({
      secretCiphertext: sealed.ciphertext,
      secretIv: sealed.iv,
      previousSecretCiphertext: keepPrevious ? existing.secretCiphertext : null,
      previousSecretIv: keepPrevious ? existing.secretIv : null,
      previousSecretExpiresAt: keepPrevious ? new Date(nowMs + overlapMs) : null,
      updatedAt: new Date(nowMs),
    })
    .where(eq(webhookEndpoints.id, id));
  const endpoint = endpointJson((await findEndpoint(deps.db, id))!);
  await deps.events.record({
    type: 'webhook_secret_rotated',
    userId: actor.actorUserId,
    ...actor,
    metadata: { endpointId: id, previousSecretExpiresAt: endpoint.previousSecretExpiresAt },
  });
  return { endpoint, secret };
}

/**
 * Puts a delivery back in the queue, due now, with a fresh attempt budget. A
 * row a sender holds right now (pending with a lease) is left alone: it is
 * being sent, and resetting it would let a second sender send it too.
 */
export async function resendDelivery(deps: AdminDeps, id: string, actor: ActorFields) {
  const existing = await findDelivery(deps.db, id);
  if (!existing) throw fail('not_found', 'Webhook delivery not found');
  const now = new Date(deps.clock.now());
  await deps.db
    .update(webhookDeliveries)
    .set({ status: 'pending', attempts: 0, nextAttemptAt: now, leaseId: null, updatedAt: now })
    .where(
      and(eq(webhookDeliveries.id, id), or(ne(webhookDeliveries.status, 'pending'), isNull(webhookDeliveries.leaseId))),
    );
  const row = await findDelivery(deps.db, id);
  // Maintenance purged it between the read and the write: nothing was resent, so nothing to audit (the route says 404).
  if (!row) return undefined;
  await deps.events.record({
    type: 'webhook_delivery_resent',
    userId: actor.actorUserId,
    ...actor,
    metadata: { deliveryId: id, endpointId: existing.endpointId, previousStatus: existing.status },
  });
  return row;
}
