/**
 * Event webhook admin responses (docs/webhooks.md). No shape has a secret
 * field except the one-time `secret` of create and rotate.
 */
import * as z from 'zod/mini';

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

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
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
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
