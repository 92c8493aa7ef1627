/** Internal metrics (contract §3.16; every route `A+r`). */
import { Hono } from 'hono';
import * as z from 'zod/mini';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { authEventJson } from '../http/serialize.js';
import { parseQuery } from '../http/validate.js';
import { requireAccess } from '../middleware/auth.js';
import { requireRole } from '../middleware/require-role.js';
import { listAnomalies } from '../repositories/auth-event-queries.js';
import {
  dashboard,
  DAY_MS,
  eventSummary,
  groupedSummary,
  loginStats,
  MAX_WINDOW_MS,
  timeseries,
  type Window,
} from '../services/events/metrics.js';

const iso = z.pipe(
  z.iso.datetime({ offset: true }),
  z.transform((v) => Date.parse(v)),
);
const windowShape = { from: z.optional(iso), to: z.optional(iso) };
const ordered = (q: { from?: number; to?: number }) => q.from === undefined || q.to === undefined || q.from <= q.to;
const orderedIssue = { message: '`from` must not be after `to`', path: ['from'] };

export const windowQuery = z.object(windowShape).check(z.refine(ordered, orderedIssue));
export const groupedQuery = z
  .object({ ...windowShape, groupBy: z._default(z.enum(['type', 'category']), 'category') })
  .check(z.refine(ordered, orderedIssue));
export const seriesQuery = z
  .object({ ...windowShape, interval: z.enum(['hour', 'day']) })
  .check(z.refine(ordered, orderedIssue));
export const anomaliesQuery = z.object({
  limit: z._default(
    z.pipe(z.pipe(z.string().check(z.regex(/^\d{1,4}$/)), z.transform(Number)), z.number().check(z.gte(1), z.lte(200))),
    50,
  ),
});

/** Defaults: the last 24 hours (§3.16). */
function resolveWindow(q: { from?: number; to?: number }, nowMs: number): Window {
  const toMs = q.to ?? nowMs;
  return { fromMs: q.from ?? toMs - DAY_MS, toMs };
}

const gate = [requireAccess, requireRole('admin:read')] as const;

export const internalRoutes = new Hono<AppEnv>()
  .get('/internal/auth-events/summary', ...gate, async (c) => {
    const deps = c.get('deps');
    const w = resolveWindow(parseQuery(c, windowQuery), deps.clock.now());
    return c.json({ summary: await eventSummary(deps, w) });
  })
  .get('/internal/auth-events/timeseries', ...gate, async (c) => {
    const deps = c.get('deps');
    const q = parseQuery(c, seriesQuery);
    const w = resolveWindow(q, deps.clock.now());
    if (w.toMs - w.fromMs > MAX_WINDOW_MS[q.interval] || w.fromMs > w.toMs) {
      const issue = {
        path: ['from'],
        code: 'too_big',
        message: q.interval === 'hour' ? 'Hourly windows are at most 31 days' : 'Daily windows are at most 366 days',
      };
      throw fail('invalid_request', 'Request failed schema validation.', { details: { issues: [issue] } });
    }
    return c.json(await timeseries(deps, w, q.interval));
  })
  .get('/internal/auth-events/login-stats', ...gate, async (c) => {
    const deps = c.get('deps');
    return c.json(await loginStats(deps, resolveWindow(parseQuery(c, windowQuery), deps.clock.now())));
  })
  .get('/internal/auth-events/grouped', ...gate, async (c) => {
    const deps = c.get('deps');
    const q = parseQuery(c, groupedQuery);
    return c.json(await groupedSummary(deps, resolveWindow(q, deps.clock.now()), q.groupBy));
  })
  .get('/internal/security/anomalies', ...gate, async (c) => {
    const { limit } = parseQuery(c, anomaliesQuery);
    const { rows, total } = await listAnomalies(c.get('deps').db, limit);
    return c.json({ anomalies: rows.map(authEventJson), total });
  })
  .get('/internal/metrics/dashboard', ...gate, async (c) => c.json(await dashboard(c.get('deps'))));
