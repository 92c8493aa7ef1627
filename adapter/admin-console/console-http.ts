/**
 * The framework-free half of the console: a page, the CSV export or an asset
 * as a plain response (status, headers, body). The Hono app and the Express
 * router only route requests here and write the answer.
 */
import type { AdapterCore } from '../core/core.js';
import type { HandlerResult } from '../core/result.js';
import type { ClientInfo } from '../core/upstream.js';
import { toWire } from '../core/wire.js';
import { ASSETS } from './assets.generated.js';
import { exportEventsCsv } from './csv.js';
import { renderLayout } from './layout.js';
import { messagePage } from './message-page.js';
import type { ConsoleSettings } from './options.js';
import { apiReader, type PageContext, type Screen } from './page.js';
import { configScreen } from './pages/config.js';
import { eventsScreen } from './pages/events.js';
import { healthScreen } from './pages/health.js';
import { organizationDetailScreen, organizationsScreen } from './pages/organizations.js';
import { providersScreen } from './pages/providers.js';
import { sessionsScreen } from './pages/sessions.js';
import { userDetailScreen, usersScreen } from './pages/users.js';
import { webhooksScreen } from './pages/webhooks.js';
import { oauthClientsScreen } from './pages/oauth-clients.js';
import { confirmLiveSession, consoleSession, type ConsoleSession } from './session.js';

/** No inline script or style anywhere: scripts and styles are the console's own files. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** Route patterns below the mount, each with its screen. */
export const SCREENS: readonly [pattern: string, screen: Screen][] = [
  ['/', healthScreen],
  ['/users', usersScreen],
  ['/users/:userId', userDetailScreen],
  ['/sessions', sessionsScreen],
  ['/events', eventsScreen],
  ['/organizations', organizationsScreen],
  ['/organizations/:organizationId', organizationDetailScreen],
  ['/config', configScreen],
  ['/providers', providersScreen],
  ['/webhooks', webhooksScreen],
  ['/oauth-clients', oauthClientsScreen],
];

export interface ConsoleRequest {
  /** Mount path, e.g. `/admin`. */
  base: string;
  /** Path below the mount (`/users/abc`), for the navigation. */
  path: string;
  /** Path and query as requested (`/admin/users?search=a`), for `signInUrl`'s `next`. */
  originalUrl: string;
  cookies: Record<string, string>;
  client: ClientInfo;
  params: Record<string, string>;
  query(name: string): string | undefined;
}

export interface ConsoleResponse {
  status: number;
  headers: [string, string][];
  body: string | null;
}

function answer(
  core: AdapterCore,
  status: number,
  body: string | null,
  extra: Record<string, string>,
  cookies: Pick<HandlerResult, 'setCookies' | 'clearCookies'> = {},
): ConsoleResponse {
  const headers: [string, string][] = Object.entries({ ...SECURITY_HEADERS, ...extra });
  for (const value of toWire(core, { status, ...cookies }).setCookies) headers.push(['set-cookie', value]);
  return { status, headers, body };
}

/** The 401 redirect (with `signInUrl`) or the 401/403/5xx page. */
function refusedPage(
  core: AdapterCore,
  settings: ConsoleSettings,
  req: ConsoleRequest,
  result: HandlerResult,
): ConsoleResponse {
  const { status, clearCookies, setCookies } = result;
  if (status === 401 && settings.signInUrl)
    return answer(
      core,
      302,
      null,
      { location: `${settings.signInUrl}?next=${encodeURIComponent(req.originalUrl)}` },
      { clearCookies, setCookies },
    );
  return answer(
    core,
    status,
    messagePage(settings.title, req.base, status).value,
    { 'content-type': 'text/html; charset=utf-8' },
    { clearCookies, setCookies },
  );
}

/**
 * Runs the guard (`admin:read`, then the API's view of the session), then
 * `run`; answers the 401/403 page or the sign-in redirect itself.
 */
async function withSession(
  core: AdapterCore,
  settings: ConsoleSettings,
  req: ConsoleRequest,
  run: (session: ConsoleSession, ctx: PageContext) => Promise<ConsoleResponse>,
): Promise<ConsoleResponse> {
  const outcome = await consoleSession(core, req.cookies, req.client, 'admin:read');
  if (!outcome.ok) return refusedPage(core, settings, req, outcome.result);
  const { session } = outcome;
  const refused = await confirmLiveSession(core, session, req.client, 'admin:read');
  if (refused) return refusedPage(core, settings, req, { ...refused, setCookies: session.setCookies });
  const ctx: PageContext = {
    base: req.base,
    settings,
    session,
    params: req.params,
    query: req.query,
    api: apiReader(core, session.token, req.client),
  };
  return run(session, ctx);
}

/** One console screen as HTML. */
export function consolePage(
  core: AdapterCore,
  settings: ConsoleSettings,
  req: ConsoleRequest,
  screen: Screen,
): Promise<ConsoleResponse> {
  return withSession(core, settings, req, async (session, ctx) => {
    const page = await screen(ctx);
    return answer(
      core,
      page.status ?? 200,
      renderLayout(ctx, page, req.path || '/').value,
      { 'content-type': 'text/html; charset=utf-8' },
      session,
    );
  });
}

/** `GET <mount>/events.csv`. */
export function consoleCsv(
  core: AdapterCore,
  settings: ConsoleSettings,
  req: ConsoleRequest,
): Promise<ConsoleResponse> {
  return withSession(core, settings, req, async (session, ctx) => {
    const out = await exportEventsCsv(ctx);
    if (!out.ok)
      return answer(
        core,
        out.status,
        JSON.stringify(out.body),
        { 'content-type': 'application/json; charset=utf-8' },
        session,
      );
    const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
    return answer(
      core,
      200,
      out.csv,
      {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="auth-events-${stamp}.csv"`,
        'x-svc-truncated': String(out.truncated),
      },
      session,
    );
  });
}

/** `GET <mount>/assets/:name`: the console's script and stylesheet and uPlot, from memory. */
export function consoleAsset(name: string): ConsoleResponse {
  const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!asset)
    return {
      status: 404,
      headers: [['content-type', 'application/json; charset=utf-8']],
      body: JSON.stringify({ error: 'not_found' }),
    };
  return {
    status: 200,
    headers: [
      ['content-type', asset.type],
      ['cache-control', 'no-cache'],
      ['x-content-type-options', 'nosniff'],
    ],
    body: asset.body,
  };
}
