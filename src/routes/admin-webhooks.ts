/**
 * Event webhooks admin API (docs/webhooks.md): endpoints under
 * `/admin/webhooks`, the delivery outbox under `/admin/webhook-deliveries`.
 * Reads need `admin:read`, writes `admin:write`. A signing secret appears in
 * exactly two answers, create and rotate, and in no list, event or log.
 */
import { Hono } from 'hono';
import * as z from 'zod/mini';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { actorFields } from '../http/audit.js';
import { runInBackground } from '../http/background.js';
import { parseBody, parseQuery } from '../http/validate.js';
import { requireAccess } from '../middleware/auth.js';
import { requireRole } from '../middleware/require-role.js';
import { errorSummary } from '../log.js';
import { dispatchDue } from '../services/webhooks/dispatcher.js';
import {
  createEndpoint,
  deleteEndpoint,
  listEndpointsForAdmin,
  patchEndpoint,
  resendDelivery,
  rotateSecret,
} from '../services/webhooks/endpoints.js';
import { WEBHOOK_DELIVERY_STATUSES } from '../http/responses/webhooks.js';
import { pageQuery } from '../http/pagination.js';
import { WEBHOOK_URL_MAX_LENGTH } from '../services/webhooks/endpoint-url.js';
import { deliveryJson, listDeliveries } from '../services/webhooks/store.js';

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

export const deliveriesQuery = z.object({
  ...pageQuery(50),
  endpointId: z.optional(z.string().check(z.maxLength(100))),
  status: z.optional(z.enum(WEBHOOK_DELIVERY_STATUSES)),
});

/** Rotate: how long the previous secret keeps signing (default 24 h; 0 = stop at once; at most 7 days). */
export const rotateBody = z.strictObject({
  overlapSeconds: z.optional(z.int().check(z.gte(0), z.lte(7 * 86_400))),
});

const BASE = '/admin/webhooks';

export const adminWebhookRoutes = new Hono<AppEnv>()
  .get(BASE, requireAccess, requireRole('admin:read'), async (c) => {
    return c.json({ endpoints: await listEndpointsForAdmin(c.get('deps')) });
  })
  .post(BASE, requireAccess, requireRole('admin:write'), async (c) => {
    const body = parseBody(c, createEndpointBody);
    return c.json(await createEndpoint(c.get('deps'), body, actorFields(c)), 201);
  })
  .patch(`${BASE}/:id`, requireAccess, requireRole('admin:write'), async (c) => {
    const body = parseBody(c, patchEndpointBody);
    return c.json({ endpoint: await patchEndpoint(c.get('deps'), c.req.param('id'), body, actorFields(c)) });
  })
  .delete(`${BASE}/:id`, requireAccess, requireRole('admin:write'), async (c) => {
    return c.json(await deleteEndpoint(c.get('deps'), c.req.param('id'), actorFields(c)));
  })
  .post(`${BASE}/:id/rotate-secret`, requireAccess, requireRole('admin:write'), async (c) => {
    const body = parseBody(c, rotateBody);
    return c.json(await rotateSecret(c.get('deps'), c.req.param('id'), body.overlapSeconds, actorFields(c)));
  })
  .get('/admin/webhook-deliveries', requireAccess, requireRole('admin:read'), async (c) => {
    const q = parseQuery(c, deliveriesQuery);
    const { rows, total } = await listDeliveries(c.get('deps').db, q, q);
    return c.json({ deliveries: rows.map(deliveryJson), total });
  })
  .post('/admin/webhook-deliveries/:id/resend', requireAccess, requireRole('admin:write'), async (c) => {
    const deps = c.get('deps');
    const row = await resendDelivery(deps, c.req.param('id'), actorFields(c));
    if (!row) throw fail('not_found', 'Webhook delivery not found');
    runInBackground(c, dispatchDue(deps), (err) =>
      deps.log.log('error', 'webhook sends failed', { error: errorSummary(err) }),
    );
    return c.json({ delivery: deliveryJson(row) });
  });
