/**
 * Every served route → its row. The API's routes have rows of their own; an
 * adapter, bridge or console-API route inherits the row of the raw route it
 * calls (common/route-table.ts, the console's table). A served route
 * without a row, and a row whose route no app serves, are both reported.
 */
import { ROUTES, TOTP_BRIDGE_ROUTES } from '../../common/route-table.js';
import { CONSOLE_API_ROUTES } from '../../adapter/admin-console/api-routes.js';
import type { MountedPart, ServedRoute } from './apps.js';
import type { Gate, Row } from './gates.js';
import { API_ROWS, CONSOLE_PAGE_ROWS, OAUTH_SERVER_ROWS, WELL_KNOWN_ROWS } from './matrix-rows.js';

export interface Resolved {
  part: MountedPart;
  route: ServedRoute;
  /** The row's key in its table (`POST /webauthn/register/start` for `GET /auth/webAuthn/register/start`). */
  rowKey: string;
  row: Row;
}

export interface Coverage {
  resolved: Resolved[];
  /** Served routes with no row: `<framework> <part>: METHOD /path`. */
  missing: string[];
  /** Rows whose route no app serves. */
  stale: string[];
}

const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
const OAUTH_SERVER_PREFIX = 'oauth-server ';
const ADMIN_LEVELS: Gate[] = ['admin:read', 'admin:write', 'admin:write+step-up'];

/**
 * The console checks `admin:read` (reads, step-up) or `admin:write` (writes) itself, then the API checks its own gate.
 */
function consoleRow(api: Row, kind: 'admin' | 'step-up', method: string): Row {
  const own: Gate = kind === 'step-up' || method === 'GET' ? 'admin:read' : 'admin:write';
  const gate = ADMIN_LEVELS.indexOf(api.gate) > ADMIN_LEVELS.indexOf(own) ? api.gate : own;
  return { ...api, gate, cookieOnly: true, consoleGate: own, apiGate: api.gate };
}

const viaAdapter = (found: { rowKey: string; row: Row } | undefined) =>
  found && { rowKey: found.rowKey, row: { ...found.row, ...found.row.adapter } };

function rowFor(part: MountedPart, route: ServedRoute): { rowKey: string; row: Row } | undefined {
  const k = key(route);
  const api = (rawKey: string) => (API_ROWS[rawKey] ? { rowKey: rawKey, row: API_ROWS[rawKey]! } : undefined);
  switch (part.part) {
    case 'api':
      return api(k);
    case 'adapter': {
      const entry = ROUTES.find((r) => key(r) === k);
      // The provider's routes (OAUTH_SERVER_ROUTES) have rows of their own: the RFCs, not svc's gates, rule them.
      if (!entry && OAUTH_SERVER_ROWS[k]) return { rowKey: `${OAUTH_SERVER_PREFIX}${k}`, row: OAUTH_SERVER_ROWS[k]! };
      return viaAdapter(entry && api(`${entry.compat?.upstreamMethod ?? entry.method} ${entry.raw}`));
    }
    case 'totp bridge': {
      const entry = TOTP_BRIDGE_ROUTES.find((r) => key(r) === k);
      return viaAdapter(entry && api(`${entry.method} ${entry.raw}`));
    }
    case 'admin console': {
      if (!route.path.startsWith('/api/'))
        return CONSOLE_PAGE_ROWS[k] ? { rowKey: k, row: { ...CONSOLE_PAGE_ROWS[k]!, cookieOnly: true } } : undefined;
      const entry = CONSOLE_API_ROUTES.find(
        (e) => e.route.method === route.method && `/api${e.route.path}` === route.path,
      );
      const found = entry && api(`${entry.route.method} ${entry.route.raw}`);
      return found && { rowKey: found.rowKey, row: consoleRow(found.row, entry.kind, route.method) };
    }
    case 'well-known':
      return WELL_KNOWN_ROWS[k] ? { rowKey: k, row: WELL_KNOWN_ROWS[k]! } : undefined;
  }
}

export function coverage(parts: MountedPart[]): Coverage {
  const resolved: Resolved[] = [];
  const missing: string[] = [];
  const used = new Set<string>();
  for (const part of parts) {
    for (const route of part.routes) {
      const found = rowFor(part, route);
      if (!found) {
        missing.push(`${part.framework} ${part.part}: ${route.method} ${part.mount}${route.path}`);
        continue;
      }
      used.add(
        `${part.part === 'admin console' && !route.path.startsWith('/api/') ? 'console' : part.part === 'well-known' ? 'well-known' : 'api'} ${found.rowKey}`,
      );
      resolved.push({ part, route, ...found });
    }
  }
  const stale = [
    ...Object.keys(API_ROWS)
      .filter((k) => !used.has(`api ${k}`))
      .map((k) => `API_ROWS ${k}`),
    ...Object.keys(CONSOLE_PAGE_ROWS)
      .filter((k) => !used.has(`console ${k}`))
      .map((k) => `CONSOLE_PAGE_ROWS ${k}`),
    ...Object.keys(WELL_KNOWN_ROWS)
      .filter((k) => !used.has(`well-known ${k}`))
      .map((k) => `WELL_KNOWN_ROWS ${k}`),
    ...Object.keys(OAUTH_SERVER_ROWS)
      .filter((k) => !used.has(`api ${OAUTH_SERVER_PREFIX}${k}`))
      .map((k) => `OAUTH_SERVER_ROWS ${k}`),
  ];
  return { resolved, missing, stale };
}
