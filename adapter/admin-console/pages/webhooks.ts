/**
 * Event webhooks: the endpoints (add, enable/disable, rotate the secret,
 * delete) and the delivery outbox (filter by status or endpoint, resend).
 * A signing secret reaches this screen only in the answer to add or rotate:
 * the console script shows it once in the `#secret-reveal` box
 * (`data-show-secret`), and no list or reload shows it again.
 */
import { html, pills, when, type Html } from '../html.js';
import { apiError, offsetOf, pager } from '../layout.js';
import type { PageContext, Screen } from '../page.js';
import { apiButton } from './users.js';

interface Endpoint {
  id: string;
  url: string;
  eventTypes: string[];
  description: string | null;
  enabled: boolean;
  previousSecretExpiresAt: string | null;
}

interface Delivery {
  id: string;
  endpointId: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
}

const STATUSES = ['pending', 'succeeded', 'failed'] as const;
const STATUS_PILL = { pending: 'grey', succeeded: 'green', failed: 'red' } as const;

/** A write whose answer carries a one-time `secret` (create, rotate). */
function secretButton(ctx: PageContext, label: string, path: string, confirm: string): Html {
  if (!ctx.session.canWrite) return html``;
  return html`<button type="button" class="secondary" data-api="${path}" data-method="POST" data-show-secret="true" data-done="Secret rotated" data-confirm="${confirm}">${label}</button>`;
}

function endpointRow(ctx: PageContext, e: Endpoint): Html {
  const path = `/admin/webhooks/${encodeURIComponent(e.id)}`;
  return html`<tr data-endpoint="${e.id}"><td><code class="clip">${e.url}</code>${e.description ? html`<br><span class="hint">${e.description}</span>` : ''}</td>
    <td>${pills(e.eventTypes)}</td>
    <td>${e.enabled ? html`<span class="pill green">enabled</span>` : html`<span class="pill grey">disabled</span>`}${e.previousSecretExpiresAt ? html`<br><span class="hint">old secret signs until ${when(e.previousSecretExpiresAt)}</span>` : ''}</td>
    <td class="right">${e.enabled ? apiButton(ctx, 'Disable', 'PATCH', path, { body: { enabled: false }, done: 'Endpoint disabled' }) : apiButton(ctx, 'Enable', 'PATCH', path, { body: { enabled: true }, done: 'Endpoint enabled' })}
      ${secretButton(ctx, 'Rotate secret', `${path}/rotate-secret`, 'Make a new signing secret? The current one keeps signing alongside it for 24 hours.')}
      ${apiButton(ctx, 'Delete', 'DELETE', path, { done: 'Endpoint deleted', confirm: `Delete the endpoint ${e.url} and its queued deliveries?`, kind: 'danger' })}</td></tr>`;
}

function deliveryRow(ctx: PageContext, d: Delivery, names: Map<string, string>): Html {
  const result = d.lastStatus !== null ? `HTTP ${d.lastStatus}` : (d.lastError ?? '—');
  return html`<tr data-delivery="${d.id}"><td class="nowrap">${when(d.createdAt)}</td><td><code>${d.eventType}</code></td>
    <td><span class="clip">${names.get(d.endpointId) ?? d.endpointId}</span></td>
    <td class="nowrap"><span class="pill ${STATUS_PILL[d.status]}">${d.status}</span>${d.status === 'pending' && d.nextAttemptAt ? html`<br><span class="hint">next ${when(d.nextAttemptAt)}</span>` : ''}</td><td>${d.attempts}</td>
    <td class="meta"><span class="clip">${result}</span></td>
    <td class="right">${d.status === 'succeeded' || d.attempts === 0 ? '' : apiButton(ctx, 'Resend', 'POST', `/admin/webhook-deliveries/${encodeURIComponent(d.id)}/resend`, { done: 'Delivery queued again' })}</td></tr>`;
}

function addForm(ctx: PageContext, open: boolean): Html {
  if (!ctx.session.canWrite) return html``;
  return html`<details class="card" id="add-webhook"${open ? ' open' : ''}><summary>Add an endpoint</summary>
    <form id="webhook-form" data-api="/admin/webhooks" data-method="POST" data-show-secret="true" data-done="Endpoint added">
      <div class="field"><label for="webhook-url">URL (https in production)</label><input id="webhook-url" name="url" required placeholder="https://hooks.example.com/svc"><span class="field-error" data-error-for="url"></span></div>
      <div class="field"><label for="webhook-types">Event types (comma-separated, * for all)</label><input id="webhook-types" name="eventTypes" data-kind="list" value="*"><span class="field-error" data-error-for="eventTypes"></span></div>
      <div class="field"><label for="webhook-description">Description</label><input id="webhook-description" name="description" maxlength="200"><span class="field-error" data-error-for="description"></span></div>
      <div class="row end"><button type="submit">Add endpoint</button></div></form></details>`;
}

export const webhooksScreen: Screen = async (ctx) => {
  const status = STATUSES.find((s) => s === ctx.query('status'));
  const endpointId = ctx.query('endpoint');
  const offset = offsetOf(ctx.query('offset'));
  const limit = ctx.settings.pageSize;
  const [endpoints, deliveries] = await Promise.all([
    ctx.api<{ endpoints: Endpoint[] }>('/admin/webhooks'),
    ctx.api<{ deliveries: Delivery[]; total: number }>('/admin/webhook-deliveries', {
      status,
      endpointId,
      limit,
      offset,
    }),
  ]);
  if (!endpoints.ok) return { title: 'Webhooks', body: apiError('Loading webhook endpoints', endpoints) };
  if (!deliveries.ok) return { title: 'Webhooks', body: apiError('Loading webhook deliveries', deliveries) };
  const list = endpoints.body.endpoints;
  // Deliveries name their endpoint by its description (shorter), else its URL.
  const names = new Map(list.map((e) => [e.id, e.description || e.url]));
  const filter = (s: string | undefined, label: string) =>
    html`<a class="${s === status ? 'pill' : 'pill grey'}" href="${ctx.base}/webhooks${s ? `?status=${s}` : ''}">${label}</a>`;
  return {
    title: 'Webhooks',
    body: html`<section id="secret-reveal" class="card hidden" role="status"><h2>Signing secret</h2>
        <p>Copy this secret into your receiver now: it is not shown again. Verify deliveries with it as <a href="https://www.standardwebhooks.com">Standard Webhooks</a> describes.</p>
        <p><code id="secret-value"></code></p><div class="row end"><button type="button" id="secret-done">I have copied it</button></div></section>
      <section class="card flush"><table id="webhooks-table"><caption class="sr-only">Webhook endpoints</caption>
      <thead><tr><th scope="col">Endpoint</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${list.length ? list.map((e) => endpointRow(ctx, e)) : html`<tr><td colspan="4" class="empty">No webhook endpoints yet.</td></tr>`}</tbody></table></section>
      ${addForm(ctx, list.length === 0)}
      <h2>Deliveries</h2><p class="row wrap" id="delivery-filters">${filter(undefined, 'All')}${STATUSES.map((s) => filter(s, s))}</p>
      <section class="card flush"><table id="deliveries-table"><caption class="sr-only">Webhook deliveries</caption>
      <thead><tr><th scope="col">Queued</th><th scope="col">Event</th><th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last result</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${deliveries.body.deliveries.length ? deliveries.body.deliveries.map((d) => deliveryRow(ctx, d, names)) : html`<tr><td colspan="7" class="empty">No deliveries${status ? ` with status ${status}` : ''}.</td></tr>`}</tbody></table></section>
      ${pager(`${ctx.base}/webhooks`, { status, endpoint: endpointId }, offset, limit, deliveries.body.total)}`,
  };
};
