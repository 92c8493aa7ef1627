/**
 * The properties every fuzzed answer must hold and the
 * shared knobs: a fixed seed and bounded runs under `npm test`, `FUZZ_SEED` /
 * `FUZZ_RUNS` for `npm run fuzz`.
 */
import type { Client } from '@libsql/client';
import { testSigningKey } from '../helpers/keys.js';
import { TEST_SERVICE_TOKEN } from '../helpers/make-app.js';
import { COOKIE_SECRET } from '../adapter/helpers.js';

export const FUZZ_SEED = Number(process.env['FUZZ_SEED'] ?? 16_016);
/** Cases per route; each suite passes its `npm test` default. */
export const fuzzRuns = (fallback: number) => Number(process.env['FUZZ_RUNS'] ?? fallback);
/** A request that has not answered by then is a hang (generous: 2 busy cores, 250 KB bodies). */
export const REQUEST_DEADLINE_MS = 10_000;

/** A seed per route, so adding a route does not reshuffle the cases of the others. */
export function routeSeed(key: string): number {
  let h = FUZZ_SEED | 0;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export async function withDeadline<T>(label: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctrl = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ctrl.abort();
      reject(new Error(`hang: ${label} did not answer within ${REQUEST_DEADLINE_MS} ms`));
    }, REQUEST_DEADLINE_MS);
  });
  try {
    return await Promise.race([work(ctrl.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Strings that must never appear in an answer: secrets of the test setup and stack frames. */
export async function secretNeedles(): Promise<string[]> {
  const { privatePem } = await testSigningKey();
  const pemLines = privatePem.split('\n').filter((l) => l.length >= 40 && !l.startsWith('-----'));
  return [TEST_SERVICE_TOKEN, COOKIE_SECRET, 'PRIVATE KEY', '-----BEGIN', ...pemLines.slice(0, 3)];
}

const STACK_FRAME = /\n\s+at |\bat [\w.<>$]+ \(|\(?(file|node):[^\s)]*:\d+:\d+|\.(ts|js|mjs):\d+:\d+/;
const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

export interface Answer {
  status: number;
  text: string;
  contentType: string | null;
}

/** Returns the first broken property, or null. */
export function brokenProperty(a: Answer, needles: string[]): string | null {
  if (a.status >= 500) return `5xx: ${a.status} ${a.text.slice(0, 300)}`;
  for (const n of needles) if (a.text.includes(n)) return `secret in body: ${n.slice(0, 12)}…`;
  if (STACK_FRAME.test(a.text)) return `stack trace in body: ${a.text.slice(0, 300)}`;
  if (a.status >= 400) {
    let body: unknown;
    try {
      body = JSON.parse(a.text);
    } catch {
      return `${a.status} body is not JSON: ${JSON.stringify(a.text.slice(0, 200))}`;
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) return `${a.status} body is not an object`;
    const { error, message } = body as { error?: unknown; message?: unknown };
    if (typeof error !== 'string' || !SNAKE.test(error))
      return `${a.status} envelope error code is not snake_case: ${JSON.stringify(error)}`;
    if (message !== undefined && typeof message !== 'string') return `${a.status} envelope message is not a string`;
    if (!a.contentType?.startsWith('application/json')) return `${a.status} content-type ${a.contentType}`;
  }
  return null;
}

/**
 * Tables a refused request may legitimately write: the audit trail, failure
 * counters, lockouts and rate-limit windows (that is their purpose).
 */
const BOOKKEEPING = new Set([
  'auth_events',
  'auth_failures',
  'lockouts',
  'rate_limit_counters',
  '__drizzle_migrations',
  'schema_migrations',
]);

/** One statement counting the rows of every state table. */
export async function rowCounter(client: Client): Promise<() => Promise<Record<string, number>>> {
  const { rows } = await client.execute(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
  );
  const tables = rows.map((r) => String(r['name'])).filter((n) => !BOOKKEEPING.has(n) && !n.startsWith('_'));
  const sql = `SELECT ${tables.map((t) => `(SELECT count(*) FROM "${t}") AS "${t}"`).join(', ')}`;
  return async () => {
    const {
      rows: [row],
    } = await client.execute(sql);
    return Object.fromEntries(tables.map((t) => [t, Number(row![t])]));
  };
}

export function countDiff(before: Record<string, number>, after: Record<string, number>): string | null {
  const changed = Object.keys(before).filter((k) => before[k] !== after[k]);
  return changed.length
    ? `state changed by a refused request: ${changed.map((k) => `${k} ${before[k]}→${after[k]}`).join(', ')}`
    : null;
}

/** Fills `:param` segments (Hono `:name{re}` too) and wildcards with generated values. */
export function fillPath(pattern: string, params: string[]): string {
  let i = 0;
  return pattern.replace(/:[A-Za-z0-9_]+(\{[^}]*\})?|\*/g, () => params[i++ % params.length] ?? 'x');
}

export const paramCount = (pattern: string) => (pattern.match(/:[A-Za-z0-9_]+(\{[^}]*\})?|\*/g) ?? []).length;
