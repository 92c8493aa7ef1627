/**
 * The console's JSON routes (`<mount>/api/...`): the adapter's admin, metrics,
 * system-config and step-up routes, run through the adapter core in cookie
 * transport. Every write passes the adapter's origin guard whatever the
 * cookie's SameSite (an admin write is worth the check in every mode) and
 * needs `admin:write`; reads need `admin:read`. The browser's own step-up
 * calls need only the session.
 */
import type { AdapterCore } from '../core/core.js';
import { runRoute } from '../core/handlers/index.js';
import { originAllowed } from '../core/origin-guard.js';
import { mergeCookies, type AdapterRequest } from '../core/pipeline.js';
import { failure, type HandlerResult } from '../core/result.js';
import { ROUTES, type RouteEntry } from '../../common/route-table.js';
import { consoleSession } from './session.js';

export type ConsoleApiKind = 'admin' | 'step-up';

export interface ConsoleApiRoute {
  route: RouteEntry;
  kind: ConsoleApiKind;
}

const ADMIN_PREFIXES = ['/admin/', '/internal/', '/system-config/'];

/** TOTP step-up is a bridge route of the adapter (§5.12); the console carries its own copy. */
const TOTP_STEP_UP: RouteEntry = {
  method: 'POST',
  path: '/totp/verify-mfa',
  raw: '/totp/verify-mfa',
  cred: 'access',
  svc: 'P',
  response: 'passthrough',
};

/** The routes below `<mount>/api`, with the adapter's paths. */
export const CONSOLE_API_ROUTES: readonly ConsoleApiRoute[] = [
  ...ROUTES.filter((r) => r.cred === 'access' && ADMIN_PREFIXES.some((p) => r.path.startsWith(p))).map((route) => ({
    route,
    kind: 'admin' as const,
  })),
  ...ROUTES.filter((r) => r.path.startsWith('/step-up/')).map((route) => ({ route, kind: 'step-up' as const })),
  { route: TOTP_STEP_UP, kind: 'step-up' },
];

const isWrite = (method: string) => !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());

/** Runs one console API request and returns the response plan. */
export async function handleConsoleApi(
  core: AdapterCore,
  entry: ConsoleApiRoute,
  req: AdapterRequest,
): Promise<HandlerResult> {
  const write = isWrite(req.method);
  if (write && !originAllowed(req, core.opts.allowedOrigins)) return failure(403, 'cross_site_request_blocked', null);
  const required = entry.kind === 'step-up' ? 'admin:read' : write ? 'admin:write' : 'admin:read';
  const outcome = await consoleSession(core, req.cookies, req.client, required);
  if (!outcome.ok) return outcome.result;
  const { session } = outcome;
  const result = await runRoute(core, entry.route, {
    transport: 'cookie',
    token: session.token,
    authorization: null,
    credentialSub: session.userId,
    params: req.params,
    query: req.query,
    body: req.body,
    client: req.client,
  });
  return mergeCookies(session.setCookies, result);
}
