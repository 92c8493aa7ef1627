/**
 * Wire schemas of the webhook admin API: the request bodies and queries the
 * routes validate with, and the response shapes (the OpenAPI documents and
 * the client read the same objects). No response shape has a secret field
 * except the one-time `secret` of create and rotate.
 */
import * as z from 'zod/mini';
import { pageQuery } from '../../http/pagination.js';
import { WEBHOOK_URL_MAX_LENGTH } from './endpoint-url.js';

/** An event type as the event log spells it (`login_failed`), or `*` for every event. */
const eventType = z.string().check(z.regex(/^(\*|[a-z][a-z0-9_]{0,63})$/, 'must be an event type or *'));
const eventTypes = z.array(eventType).check(z.minLength(1), z.maxLength(100));
const url = z.string().check(z.minLength(1), z.maxLength(WEBHOOK_URL_MAX_LENGTH));
const description = z.string().check(z.maxLength(200));

export const createEndpointBody = z.strictObject({
  url,
  eventTypes: z._default(eventTypes, ['*']),
  description: z.optional(z.nullable(description)),
  enabled: z._default(z.boolean(), true),
});

export const patchEndpointBody = z.strictObject({
  url: z.optional(url),
  eventTypes: z.optional(eventTypes),
  description: z.optional(z.nullable(description)),
  enabled: z.optional(z.boolean()),
});

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const deliveriesQuery = z.object({
  ...pageQuery(50),
  endpointId: z.optional(z.string().check(z.maxLength(100))),
  status: z.optional(z.enum(DELIVERY_STATUSES)),
});

export const WebhookEndpoint = z.object({
  id: z.string(),
  url: z.string(),
  eventTypes: z.array(z.string()),
  description: z.nullable(z.string()),
  enabled: z.boolean(),
  /** When the previous secret stops signing (a rotation's overlap), or null. */
  previousSecretExpiresAt: z.nullable(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const WebhookDelivery = z.object({
  id: z.string(),
  endpointId: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number(),
  nextAttemptAt: z.nullable(z.string()),
  lastStatus: z.nullable(z.number()),
  lastError: z.nullable(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const WebhookEndpointListResponse = z.object({ endpoints: z.array(WebhookEndpoint) });
export const WebhookEndpointResponse = z.object({ endpoint: WebhookEndpoint });
/** Create and rotate: the signing secret, shown this once (`whsec_<base64>`). */
export const WebhookEndpointWithSecretResponse = z.object({ endpoint: WebhookEndpoint, secret: z.string() });
export const WebhookDeliveryListResponse = z.object({ deliveries: z.array(WebhookDelivery), total: z.number() });
export const WebhookDeliveryResponse = z.object({ delivery: WebhookDelivery });
