/** Event webhook admin routes (docs/webhooks.md); reads need `admin:read`, writes `admin:write`. */
import {
  WebhookDeliveryListResponse,
  WebhookDeliveryResponse,
  WebhookEndpointListResponse,
  WebhookEndpointResponse,
  WebhookEndpointWithSecretResponse,
} from '../http/responses/webhooks.js';
import { DeleteResponse } from '../http/responses/admin.js';
import { createEndpointBody, deliveriesQuery, patchEndpointBody, rotateBody } from '../routes/admin-webhooks.js';
import { op, type Operation } from './operation.js';

const A = 'access' as const;
const read = { role: 'admin:read' } as const;
const write = { role: 'admin:write' } as const;
const URL_RULES =
  'The URL must be https in production and may not name this service (ISSUER), loopback, private, link-local or unique-local addresses in any literal form, or `localhost`/`.local`/`.internal` names; refusals are 400 `invalid_request` with `details.issues[].path` `["url"]`.';

export const webhookOperations: Operation[] = [
  op('GET', '/admin/webhooks', 'Webhook endpoints (never a secret)', A, WebhookEndpointListResponse, read),
  op(
    'POST',
    '/admin/webhooks',
    'Add a webhook endpoint; its signing secret is in this answer only',
    A,
    [{ status: 201, schema: WebhookEndpointWithSecretResponse }],
    { ...write, body: createEndpointBody, description: URL_RULES },
  ),
  op(
    'PATCH',
    '/admin/webhooks/:id',
    'Change a webhook endpoint (url, event types, enabled)',
    A,
    WebhookEndpointResponse,
    {
      ...write,
      body: patchEndpointBody,
      errors: ['not_found', 'no_changes'],
      description: URL_RULES,
    },
  ),
  op('DELETE', '/admin/webhooks/:id', 'Remove a webhook endpoint and its deliveries', A, DeleteResponse, {
    ...write,
    errors: ['not_found'],
  }),
  op(
    'POST',
    '/admin/webhooks/:id/rotate-secret',
    'New signing secret (in this answer only); the old one signs alongside it until the overlap ends',
    A,
    WebhookEndpointWithSecretResponse,
    { ...write, body: rotateBody, errors: ['not_found'] },
  ),
  op(
    'GET',
    '/admin/webhook-deliveries',
    'Webhook deliveries (the outbox), newest first',
    A,
    WebhookDeliveryListResponse,
    {
      ...read,
      query: deliveriesQuery,
    },
  ),
  op(
    'POST',
    '/admin/webhook-deliveries/:id/resend',
    'Queue a delivery again, due now, with a fresh attempt budget',
    A,
    WebhookDeliveryResponse,
    { ...write, errors: ['not_found'] },
  ),
];
