/** The auth-events CSV export: every matching event (up to a cap), RFC 4180 quoting, no spreadsheet formulas. */
import type { PageContext } from './page.js';
import { readFilters, type AuthEvent } from './pages/events.js';

/** At most this many rows per export (100 API pages). */
export const CSV_MAX_ROWS = 10_000;
const PAGE = 100;
const COLUMNS = [
  'createdAt',
  'type',
  'userId',
  'actorUserId',
  'sessionId',
  'ipAddress',
  'userAgent',
  'metadata',
] as const;

/**
 * One CSV field: quoted when needed; a leading `= + - @` (or tab/CR) is
 * prefixed with `'` so a spreadsheet never runs it.
 */
export function csvField(value: unknown): string {
  let s = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export type CsvOutcome =
  | { ok: true; csv: string; rows: number; truncated: boolean }
  | { ok: false; status: number; body: { error: string; message: string; details?: unknown } };

export async function exportEventsCsv(ctx: PageContext): Promise<CsvOutcome> {
  const filters = await readFilters(ctx);
  if (!filters.query) {
    const issues = Object.entries(filters.errors).map(([key, message]) => ({ path: [key], code: 'invalid', message }));
    return {
      ok: false,
      status: 400,
      body: { error: 'invalid_request', message: 'Invalid filters', details: { issues } },
    };
  }
  let query = filters.query;
  const lines = [COLUMNS.join(',')];
  for (let offset = 0; offset < CSV_MAX_ROWS; offset += PAGE) {
    const res = await ctx.api<{ events: AuthEvent[]; total: number }>('/admin/auth-events', {
      ...query,
      limit: PAGE,
      offset,
    });
    if (!res.ok)
      return {
        ok: false,
        status: res.status >= 500 ? 502 : res.status,
        body: { error: res.error, message: res.message },
      };
    // Later pages end at the newest exported event, so events arriving meanwhile cannot shift them.
    if (offset === 0 && !query['to'] && res.body.events[0]) query = { ...query, to: res.body.events[0].createdAt };
    for (const e of res.body.events) lines.push(COLUMNS.map((c) => csvField(e[c])).join(','));
    if (offset + PAGE >= res.body.total || res.body.events.length < PAGE)
      return { ok: true, csv: `${lines.join('\r\n')}\r\n`, rows: lines.length - 1, truncated: false };
  }
  return { ok: true, csv: `${lines.join('\r\n')}\r\n`, rows: lines.length - 1, truncated: true };
}
