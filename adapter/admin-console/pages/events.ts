/**
 * Auth events: filters (type, user, IP, time range), stable pagination and a
 * CSV export. Later pages are pinned to the newest event of the first page
 * (`asof`), so events arriving meanwhile never shift them.
 */
import { html, when } from '../html.js';
import { apiError, offsetOf, pager } from '../layout.js';
import type { PageContext, Screen } from '../page.js';
import { resolveUser } from './sessions.js';

export type AuthEvent = {
  id: string;
  type: string;
  userId: string | null;
  actorUserId: string | null;
  sessionId: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  metadata: unknown;
  createdAt: string;
};

const SHORTHANDS: [string, string][] = [
  ['', 'All types'],
  ['login', 'Sign-in'],
  ['otp', 'One-time codes'],
  ['webauthn', 'Passkeys'],
  ['magicLink', 'Magic links'],
  ['suspicious', 'Suspicious'],
];
const TYPE_PATTERN = /^[A-Za-z_]{1,64}$/;
const IP_PATTERN = /^[0-9A-Fa-f:.]{2,45}$/;
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

/** `2026-11-25T14:00` (a datetime-local value, read as UTC) or an ISO instant → ISO; null when unusable. */
export function toIso(value: string): string | null {
  const candidate = LOCAL_TIME.test(value) ? `${value.length === 16 ? `${value}:00` : value}Z` : value;
  const ms = Date.parse(candidate);
  return Number.isNaN(ms) || !/^\d{4}-/.test(candidate) ? null : new Date(ms).toISOString();
}

export interface EventFilters {
  values: Record<string, string | undefined>;
  errors: Record<string, string>;
  /** The API query (without paging); null when a filter is invalid or names no user. */
  query: Record<string, string> | null;
}

/** Reads and checks the filters of the events screen and the CSV export. */
export async function readFilters(ctx: PageContext): Promise<EventFilters> {
  const values = {
    type: ctx.query('type'),
    user: ctx.query('user'),
    ip: ctx.query('ip'),
    from: ctx.query('from'),
    to: ctx.query('to'),
    asof: ctx.query('asof'),
  };
  const errors: Record<string, string> = {};
  const query: Record<string, string> = {};
  if (values.type) {
    if (TYPE_PATTERN.test(values.type)) query['type'] = values.type;
    else errors['type'] = 'Letters and underscores only';
  }
  if (values.ip) {
    if (IP_PATTERN.test(values.ip)) query['ip'] = values.ip;
    else errors['ip'] = 'Enter an IPv4 or IPv6 address';
  }
  for (const key of ['from', 'to'] as const) {
    const v = values[key];
    if (!v) continue;
    const iso = toIso(v);
    if (iso) query[key] = iso;
    else errors[key] = 'Enter a date and time';
  }
  if (query['from'] && query['to'] && query['from'] > query['to']) errors['from'] = '“From” must not be after “to”';
  // Pin the pages: without an explicit end, the end is when the first page was shown.
  const asof = values.asof && toIso(values.asof);
  if (!query['to'] && asof) query['to'] = asof;
  if (values.user) {
    const user = await resolveUser(ctx, values.user);
    if (user) query['userId'] = user.id;
    else errors['user'] = 'No user with this email';
  }
  return { values, errors, query: Object.keys(errors).length ? null : query };
}

const fieldError = (errors: Record<string, string>, key: string) =>
  errors[key] ? html`<span class="field-error" id="err-${key}">${errors[key]}</span>` : '';

export const eventsScreen: Screen = async (ctx) => {
  const filters = await readFilters(ctx);
  const { values, errors } = filters;
  const offset = offsetOf(ctx.query('offset'));
  const limit = ctx.settings.pageSize;
  const typeIsShorthand = SHORTHANDS.some(([v]) => v === (values.type ?? ''));
  const form = html`<form class="filters card" method="get" action="${ctx.base}/events" id="event-filters">
    <label>Type<select name="type" id="filter-type">${SHORTHANDS.map(([v, label]) => html`<option value="${v}"${(values.type ?? '') === v ? ' selected' : ''}>${label}</option>`)}
      ${typeIsShorthand ? '' : html`<option value="${values.type}" selected>${values.type}</option>`}</select>${fieldError(errors, 'type')}</label>
    <label>User (email or id)<input name="user" id="filter-user" value="${values.user ?? ''}" maxlength="320" aria-invalid="${errors['user'] ? 'true' : 'false'}">${fieldError(errors, 'user')}</label>
    <label>IP address<input name="ip" id="filter-ip" value="${values.ip ?? ''}" maxlength="45" aria-invalid="${errors['ip'] ? 'true' : 'false'}">${fieldError(errors, 'ip')}</label>
    <label>From (UTC)<input type="datetime-local" name="from" id="filter-from" value="${values.from ?? ''}">${fieldError(errors, 'from')}</label>
    <label>To (UTC)<input type="datetime-local" name="to" id="filter-to" value="${values.to ?? ''}">${fieldError(errors, 'to')}</label>
    <div class="row end"><a class="button secondary" href="${ctx.base}/events">Reset</a><button type="submit">Apply</button></div></form>`;
  if (!filters.query)
    return {
      title: 'Auth events',
      body: html`${form}<div class="notice error" role="alert">Fix the highlighted filters.</div>`,
    };
  const res = await ctx.api<{ events: AuthEvent[]; total: number }>('/admin/auth-events', {
    ...filters.query,
    limit,
    offset,
  });
  if (!res.ok) return { title: 'Auth events', body: html`${form}${apiError('Loading events', res)}` };
  // Pin later pages to the newest event shown now (the API's clock, not this server's).
  const asof = filters.query['to'] ? undefined : (values.asof ?? res.body.events[0]?.createdAt);
  const keep = { type: values.type, user: values.user, ip: values.ip, from: values.from, to: values.to, asof };
  const csv = new URLSearchParams(Object.entries(keep).filter((e): e is [string, string] => Boolean(e[1]))).toString();
  const rows = res.body.events.map(
    (e) => html`<tr><td class="nowrap">${when(e.createdAt)}</td><td><code>${e.type}</code></td>
      <td>${e.userId ? html`<a href="${ctx.base}/users/${encodeURIComponent(e.userId)}"><code>${e.userId.slice(0, 8)}…</code></a>` : '—'}</td>
      <td>${e.actorUserId ? html`<a href="${ctx.base}/users/${encodeURIComponent(e.actorUserId)}"><code>${e.actorUserId.slice(0, 8)}…</code></a>` : ''}</td>
      <td>${e.ipAddress ?? '—'}</td><td class="meta">${e.metadata ? html`<span class="clip" title="${JSON.stringify(e.metadata)}">${JSON.stringify(e.metadata)}</span>` : ''}</td></tr>`,
  );
  return {
    title: 'Auth events',
    actions: html`<a class="button secondary" id="export-csv" href="${ctx.base}/events.csv${csv ? `?${csv}` : ''}" download>Export CSV</a>`,
    body: html`${form}<section class="card flush"><table id="events-table"><caption class="sr-only">Auth events, newest first</caption>
      <thead><tr><th scope="col">When</th><th scope="col">Type</th><th scope="col">User</th><th scope="col">By admin</th><th scope="col">IP</th><th scope="col">Details</th></tr></thead>
      <tbody>${rows.length ? rows : html`<tr><td colspan="6" class="empty">No events match.</td></tr>`}</tbody></table></section>
      ${pager(`${ctx.base}/events`, keep, offset, limit, res.body.total)}`,
  };
};
