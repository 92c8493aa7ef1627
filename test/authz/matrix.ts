/**
 * The authorization matrix: every route every app serves × every
 * principal × each transport, with the status the contract gives. Shared by
 * the test (every cell asserted) and `npm run authz-matrix` (every cell printed).
 */
import { APP_ORIGIN } from '../adapter/helpers.js';
import { buildApps, type Apps } from './apps.js';
import { coverage, type Coverage, type Resolved } from './coverage.js';
import {
  describeExpected,
  describeOutcome,
  expectedFor,
  matches,
  type Expected,
  type Ids,
  type Outcome,
  type Row,
} from './gates.js';
import { makeWorld, mint, PRINCIPALS, SPECS, type Creds, type PrincipalId, type World } from './principals.js';

export type Transport = 'bearer' | 'cookie';

export interface Cell {
  /** `hono adapter (cookie)`, `api`, … */
  surface: string;
  transport: Transport | 'api';
  /** `METHOD /mounted/path`. */
  route: string;
  rowKey: string;
  principal: PrincipalId;
  row: Row;
  expected: Expected;
  knownDefect?: Row['knownDefect'];
  run(): Promise<Outcome>;
}

export interface CellResult extends Omit<Cell, 'run'> {
  observed: Outcome;
  pass: boolean;
}

const DEFAULT_PARAMS: Record<string, string> = {
  organizationId: 'org',
  userId: 'victim',
  id: 'missing',
  token: 'missing',
  providerId: 'missing',
};

function concretePath(w: World, path: string, row: Row): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const v = row.params?.[name] ?? DEFAULT_PARAMS[name] ?? 'missing';
    return encodeURIComponent(Object.hasOwn(w.ids, v) ? w.ids[v as keyof Ids] : v);
  });
}

function requestInit(w: World, r: Resolved, transport: Transport | 'api', c: Creds): RequestInit {
  const method = r.route.method;
  const headers: Record<string, string> = { 'user-agent': 'authz-matrix', ...c.headers };
  const bearer = r.row.gate === 'refresh' ? (c.refresh ?? c.bearer) : c.bearer;
  if ((transport !== 'cookie' || c.mixed) && bearer) headers['authorization'] = `Bearer ${bearer}`;
  if (transport === 'bearer') headers['x-svc-auth-transport'] = 'bearer';
  const jar = Object.entries(c.cookies);
  if ((transport === 'cookie' || (transport === 'bearer' && c.mixed)) && jar.length)
    headers['cookie'] = jar.map(([k, v]) => `${k}=${v}`).join('; ');
  if (transport === 'cookie') {
    // A same-origin browser: the console's writes and the adapter's guarded GET forms check it.
    if (method !== 'GET') headers['origin'] = APP_ORIGIN;
  }
  let body: string | undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    body = JSON.stringify(
      typeof r.row.body === 'function' ? (r.row.body as (ids: Ids) => unknown)(w.ids) : (r.row.body ?? {}),
    );
    headers['content-type'] = 'application/json';
  }
  return { method, headers, body };
}

async function outcomeOf(res: Response): Promise<Outcome> {
  const text = await res.text();
  let body: any;
  try {
    body = text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const o: Outcome = { status: res.status };
  if (res.status >= 400 && body && typeof body === 'object') {
    if (typeof body.error === 'string') o.error = body.error;
    if (typeof body.message === 'string') o.message = body.message;
    if (Array.isArray(body.required)) o.required = body.required;
  }
  return o;
}

export interface Matrix {
  apps: Apps;
  coverage: Coverage;
  cells: Cell[];
}

/** The route's full path: the app's own `/` below a mount is the mount itself. */
const mounted = (r: Resolved) => (r.route.path === '/' && r.part.mount ? r.part.mount : r.part.mount + r.route.path);

/**
 * Express's bearer transport runs the same core pipeline as Hono's (which runs every route) over a real
 * socket, the slowest cells of the matrix: it gets a representative share — the first route of each
 * credential class per part, and every route that spends its caller or answers logout/refresh its own way.
 */
function expressBearerSample(r: Resolved, seen: Set<string>): boolean {
  if (r.part.framework !== 'express') return true;
  const key = `${r.part.part} ${r.row.gate}`;
  if (r.row.fresh || r.row.adapter || !seen.has(key)) {
    seen.add(key);
    return true;
  }
  return false;
}

/**
 * Transports per part: the API is bearer-only; the well-known files take no credential. The console is cookie-only: its
 * bearer cells check it acts on no bearer.
 */
const transportsOf = (r: Resolved): (Transport | 'api')[] =>
  r.part.part === 'api' ? ['api'] : r.part.part === 'well-known' ? ['cookie'] : ['cookie', 'bearer'];

export async function buildMatrix(): Promise<Matrix> {
  const apps = await buildApps();
  const w = await makeWorld(apps.h);
  const cov = coverage(apps.parts);
  const cache = new Map<PrincipalId, Promise<Creds>>();
  const creds = (id: PrincipalId, fresh: boolean) => {
    if (fresh) return mint(w, SPECS[id]);
    if (!cache.has(id)) cache.set(id, mint(w, SPECS[id]));
    return cache.get(id)!;
  };
  const cells: Cell[] = [];
  const sampled = new Set<string>();
  for (const r of cov.resolved) {
    for (const transport of transportsOf(r)) {
      if (transport === 'bearer' && !expressBearerSample(r, sampled)) continue;
      const surface = r.part.part === 'api' ? 'api' : `${r.part.framework} ${r.part.part} (${transport})`;
      for (const principal of PRINCIPALS) {
        const expected = expectedFor(r.row, principal, SPECS[principal], { cookie: transport === 'cookie' });
        const d = r.row.knownDefect;
        const defect =
          d?.principals.includes(principal) && (!d.transports || d.transports.includes(transport)) ? d : undefined;
        cells.push({
          surface,
          transport,
          route: `${r.route.method} ${mounted(r)}`,
          rowKey: r.rowKey,
          principal,
          row: r.row,
          expected,
          ...(defect ? { knownDefect: defect } : {}),
          run: async () => {
            const c = await creds(principal, !!r.row.fresh);
            const path = concretePath(w, mounted(r), r.row) + (r.row.query ? `?${r.row.query}` : '');
            return outcomeOf(await r.part.request(path, requestInit(w, r, transport, c)));
          },
        });
      }
    }
  }
  return { apps, coverage: cov, cells };
}

/** Runs one cell and judges it against the contract. */
export async function evaluate({ run, ...cell }: Cell): Promise<CellResult> {
  const observed = await run();
  return { ...cell, observed, pass: matches(cell.row, cell.expected, observed) };
}

/** Runs cells `width` at a time (one shared harness; the apps are in-process or on loopback). */
export async function runCells<T>(items: T[], width: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await run(items[next++]!);
    }),
  );
}

export function formatCell(r: CellResult): string {
  const verdict = r.pass ? 'PASS' : r.knownDefect ? 'KNOWN' : 'FAIL';
  return `${verdict.padEnd(5)} ${r.surface.padEnd(30)} ${r.route.padEnd(66)} ${r.principal.padEnd(32)} expected ${describeExpected(r.expected, r.row).padEnd(44)} observed ${describeOutcome(r.observed)}`;
}
