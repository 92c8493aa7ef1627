/**
 * Sign-in health: headline numbers from `/internal/metrics/dashboard` and
 * charts from `/internal/auth-events/timeseries` (sign-ins by method, failures
 * and lockouts, OTP sends by channel), each with its numbers in a table, plus
 * the top failure reasons.
 */
import { html, jsonBlock, when, type Html } from '../html.js';
import { apiError } from '../layout.js';
import type { Screen } from '../page.js';

type Bucket = {
  start: string;
  byType?: Record<string, number>;
  signInsByMethod?: Record<string, number>;
  otpSendsByChannel?: Record<string, number>;
};
type Dashboard = {
  totalUsers: number;
  activeSessions: number;
  newUsers24h: number;
  loginSuccess24h: number;
  loginFailed24h: number;
  successRate24h: number;
  otpUsage24h: number;
  passkeyUsage24h: number;
};

/** Failed first or second factors (the API's LOGIN_FAILURE_TYPES). */
export const FAILURE_TYPES = [
  'login_failed',
  'webauthn_login_failed',
  'verify_otp_failed',
  'totp_failed',
  'magic_link_failed',
  'oauth_login_failed',
];
const RANGES: Record<string, { label: string; interval: 'hour' | 'day'; hours: number }> = {
  '24h': { label: 'Last 24 hours', interval: 'hour', hours: 24 },
  '7d': { label: 'Last 7 days', interval: 'hour', hours: 7 * 24 },
  '30d': { label: 'Last 30 days', interval: 'day', hours: 30 * 24 },
};
const METHOD_LABELS: Record<string, string> = {
  passkey: 'Passkey',
  email_otp: 'Email code',
  phone_otp: 'SMS code',
  magic_link: 'Magic link',
  oauth: 'OAuth',
  totp: 'Authenticator app',
  registration: 'New account',
  unknown: 'Other',
};

export interface Chart {
  id: string;
  title: string;
  interval: 'hour' | 'day';
  /** Bucket starts, Unix seconds. */
  x: number[];
  series: { label: string; values: number[] }[];
}

/** Chart series from the buckets: one per key seen in `pick` (a fixed list keeps empty series visible). */
function seriesOf(
  buckets: Bucket[],
  pick: (b: Bucket) => Record<string, number>,
  labels: Record<string, string>,
  fixed: string[] = [],
): Chart['series'] {
  const keys = [...new Set([...fixed, ...buckets.flatMap((b) => Object.keys(pick(b)))])];
  return keys.map((k) => ({ label: labels[k] ?? k, values: buckets.map((b) => pick(b)[k] ?? 0) }));
}

export function buildCharts(buckets: Bucket[], interval: 'hour' | 'day'): Chart[] {
  const x = buckets.map((b) => Date.parse(b.start) / 1000);
  const sum = (b: Bucket, types: string[]) => types.reduce((n, t) => n + (b.byType?.[t] ?? 0), 0);
  return [
    {
      id: 'chart-signins',
      title: `Sign-ins per ${interval} by method`,
      interval,
      x,
      series: seriesOf(buckets, (b) => b.signInsByMethod ?? {}, METHOD_LABELS, ['passkey']),
    },
    {
      id: 'chart-failures',
      title: `Failed sign-ins and lockouts per ${interval}`,
      interval,
      x,
      series: [
        { label: 'Failed sign-ins', values: buckets.map((b) => sum(b, FAILURE_TYPES)) },
        { label: 'Lockouts', values: buckets.map((b) => sum(b, ['account_locked'])) },
      ],
    },
    {
      id: 'chart-otp',
      title: `One-time codes sent per ${interval}`,
      interval,
      x,
      series: seriesOf(buckets, (b) => b.otpSendsByChannel ?? {}, { email: 'Email', sms: 'SMS' }, ['email', 'sms']),
    },
  ];
}

const bucketLabel = (seconds: number, interval: 'hour' | 'day') =>
  interval === 'day'
    ? new Date(seconds * 1000).toISOString().slice(0, 10)
    : when(new Date(seconds * 1000).toISOString());

/** The chart's numbers as a table (its text alternative); empty buckets are left out to keep it short. */
function chartTable(chart: Chart): Html {
  const rows = chart.x
    .map((x, i) => ({ x, values: chart.series.map((s) => s.values[i] ?? 0) }))
    .filter((r) => r.values.some((v) => v > 0));
  const totals = chart.series.map((s) => s.values.reduce((a, b) => a + b, 0));
  return html`<details class="numbers"><summary>Numbers for “${chart.title}”</summary><table data-for="${chart.id}"><thead><tr><th scope="col">${chart.interval === 'day' ? 'Day' : 'Hour (UTC)'}</th>${chart.series.map((s) => html`<th scope="col" class="num">${s.label}</th>`)}</tr></thead>
    <tbody>${rows.length ? rows.map((r) => html`<tr><th scope="row">${bucketLabel(r.x, chart.interval)}</th>${r.values.map((v) => html`<td class="num">${v}</td>`)}</tr>`) : html`<tr><td colspan="${chart.series.length + 1}" class="empty">Nothing in this period.</td></tr>`}</tbody>
    <tfoot><tr><th scope="row">Total</th>${totals.map((t) => html`<td class="num">${t}</td>`)}</tr></tfoot></table></details>`;
}

function chartCard(chart: Chart): Html {
  const summary = chart.series.map((s) => `${s.label}: ${s.values.reduce((a, b) => a + b, 0)}`).join(', ');
  return html`<section class="card chart-card"><h2 id="${chart.id}-title">${chart.title}</h2>
    <div class="chart" id="${chart.id}" data-chart="${chart.id}" role="img" aria-labelledby="${chart.id}-title" aria-describedby="${chart.id}-summary"></div>
    <p class="hint" id="${chart.id}-summary">Totals for the period — ${summary}.</p>${chartTable(chart)}</section>`;
}

const stat = (id: string, label: string, value: string | number, note = '') =>
  html`<div class="stat" id="${id}"><span class="stat-value">${value}</span><span class="stat-label">${label}</span>${note ? html`<span class="stat-note">${note}</span>` : ''}</div>`;

export const healthScreen: Screen = async (ctx) => {
  const rangeKey = ctx.query('range') ?? '24h';
  const range = RANGES[rangeKey] ?? RANGES['24h']!;
  // The window ends at the API's "now" (its default `to`); the 24 h window is its default `from` too.
  const from = range.hours === 24 ? undefined : new Date(Date.now() - range.hours * 3_600_000).toISOString();
  const [dash, series] = await Promise.all([
    ctx.api<Dashboard>('/internal/metrics/dashboard'),
    ctx.api<{ buckets: Bucket[] }>('/internal/auth-events/timeseries', {
      interval: range.interval,
      ...(from ? { from } : {}),
    }),
  ]);
  const picker = html`<nav class="segmented" aria-label="Period">${Object.entries(RANGES).map(([k, r]) => html`<a href="${ctx.base}?range=${k}"${r === range ? html` aria-current="true"` : ''}>${r.label}</a>`)}</nav>`;
  const stats = dash.ok
    ? html`<div class="stats">${stat('stat-active-sessions', 'Active sessions', dash.body.activeSessions)}${stat('stat-users', 'Users', dash.body.totalUsers, `${dash.body.newUsers24h} new in 24 h`)}
        ${stat('stat-signins', 'Sign-ins, 24 h', dash.body.loginSuccess24h, `${dash.body.passkeyUsage24h} with a passkey`)}${stat('stat-failures', 'Failed sign-ins, 24 h', dash.body.loginFailed24h, `${Math.round(dash.body.successRate24h * 100)}% success`)}
        ${stat('stat-otp', 'Codes sent, 24 h', dash.body.otpUsage24h)}</div>`
    : apiError('Loading the dashboard', dash);
  if (!series.ok)
    return {
      title: 'Sign-in health',
      actions: picker,
      body: html`${stats}${apiError('Loading the time series', series)}`,
    };
  const charts = buildCharts(series.body.buckets, range.interval);
  const reasons = new Map<string, number>();
  for (const b of series.body.buckets)
    for (const t of FAILURE_TYPES.concat('account_locked'))
      if (b.byType?.[t]) reasons.set(t, (reasons.get(t) ?? 0) + b.byType[t]!);
  const top = [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 8);
  const max = top[0]?.[1] ?? 1;
  return {
    title: 'Sign-in health',
    actions: picker,
    charts: true,
    body: html`${stats}<div class="grid two">${charts.map(chartCard)}
      <section class="card"><h2 id="reasons-title">Top failure reasons</h2>${
        top.length
          ? html`<table id="failure-reasons" aria-labelledby="reasons-title"><thead><tr><th scope="col">Reason</th><th scope="col" class="num">Count</th><th scope="col"><span class="sr-only">Share</span></th></tr></thead><tbody>
          ${top.map(([t, n]) => html`<tr><td><a href="${ctx.base}/events?type=${t}"><code>${t}</code></a></td><td class="num">${n}</td><td class="bar-cell"><meter min="0" max="${max}" value="${n}" aria-hidden="true"></meter></td></tr>`)}</tbody></table>`
          : html`<p class="empty">No failed sign-ins in this period.</p>`
      }</section></div>
      ${jsonBlock('chart-data', charts)}`,
  };
};
