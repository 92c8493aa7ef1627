/**
 * `svcAdminConsole(opts)`: the admin console as a Hono app, mounted with
 * `app.route('/admin', svcAdminConsole(opts))`. Server-rendered pages read the
 * auth API as the signed-in admin; the page script sends writes to the
 * console's own `/api` routes (the adapter core, origin-guarded, `admin:write`).
 */
import { Hono, type Context } from 'hono';
import { parseCookieHeader } from '../../core/cookies.js';
import { createAdapterCore, type AdapterCore } from '../../core/core.js';
import type { HandlerResult } from '../../core/result.js';
import { clientIpOf, toWire } from '../../core/wire.js';
import { defaultClientIp } from '../request.js';
import { serve } from '../serve.js';
import { handleConsoleApi, CONSOLE_API_ROUTES } from './api-routes.js';
import { ASSETS } from './assets.generated.js';
import { exportEventsCsv } from './csv.js';
import { renderLayout } from './layout.js';
import { consoleSettings, type ConsoleSettings, type SvcAdminConsoleOptions } from './options.js';
import { apiReader, type PageContext, type Screen } from './page.js';
import { configScreen } from './pages/config.js';
import { eventsScreen } from './pages/events.js';
import { healthScreen } from './pages/health.js';
import { organizationDetailScreen, organizationsScreen } from './pages/organizations.js';
import { providersScreen } from './pages/providers.js';
import { sessionsScreen } from './pages/sessions.js';
import { userDetailScreen, usersScreen } from './pages/users.js';
import { messagePage } from './message-page.js';
import { consoleSession, type ConsoleSession } from './session.js';

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

const SCREENS: [pattern: string, screen: Screen][] = [
  ['/', healthScreen],
  ['/users', usersScreen],
  ['/users/:userId', userDetailScreen],
  ['/sessions', sessionsScreen],
  ['/events', eventsScreen],
  ['/organizations', organizationsScreen],
  ['/organizations/:organizationId', organizationDetailScreen],
  ['/config', configScreen],
  ['/providers', providersScreen],
];

/** The mount path: the matched route pattern minus the pattern this app registered. */
function baseOf(c: Context, pattern: string): string {
  const full = c.req.routePath;
  const base = pattern === '/' ? full : full.slice(0, full.length - pattern.length);
  return base.replace(/\/+$/, '');
}

/** Headers for a page answer, with the session's refreshed cookies and any clears. */
function pageHeaders(core: AdapterCore, cookies: Pick<HandlerResult, 'setCookies' | 'clearCookies'>, extra: Record<string, string>): Headers {
  const headers = new Headers({ ...SECURITY_HEADERS, ...extra });
  for (const value of toWire(core, { status: 200, ...cookies }).setCookies) headers.append('set-cookie', value);
  return headers;
}

/** Runs the guard for a page; answers the 401/403 page itself. */
async function withSession(c: Context, core: AdapterCore, settings: ConsoleSettings, base: string, run: (session: ConsoleSession, ctx: PageContext) => Promise<Response>): Promise<Response> {
  const client = { ip: clientIpOf(core.opts, c, defaultClientIp), userAgent: c.req.header('user-agent') };
  const outcome = await consoleSession(core, parseCookieHeader(c.req.header('cookie')), client, 'admin:read');
  if (!outcome.ok) {
    const { status, clearCookies, setCookies } = outcome.result;
    const url = new URL(c.req.url);
    if (status === 401 && settings.signInUrl) {
      const headers = pageHeaders(core, { clearCookies, setCookies }, { location: `${settings.signInUrl}?next=${encodeURIComponent(url.pathname + url.search)}` });
      return new Response(null, { status: 302, headers });
    }
    const page = messagePage(settings.title, base, status);
    return new Response(page.value, { status, headers: pageHeaders(core, { clearCookies, setCookies }, { 'content-type': 'text/html; charset=utf-8' }) });
  }
  const { session } = outcome;
  const ctx: PageContext = {
    base,
    settings,
    session,
    params: c.req.param() as Record<string, string>,
    query: (name) => c.req.query(name)?.trim() || undefined,
    api: apiReader(core, session.token, client),
  };
  return run(session, ctx);
}

/**
 * The admin console. Pass the options you give `svcAdapter`, plus `title`,
 * `signInUrl` and `pageSize` if you like.
 * Pages need `admin:read`; writes need `admin:write` and pass the adapter's
 * origin guard; when the API asks for a fresh step-up the page runs the
 * passkey or authenticator-code ceremony and retries.
 *
 * @example
 * import { Hono } from 'hono';
 * import { svcAdapter, svcAdminConsole } from 'svc-auth/hono';
 *
 * const auth = { authServerUrl, cookieSecret, serviceSecret, issuer: 'https://app.example.com', audience: authServerUrl };
 * const app = new Hono();
 * app.route('/auth', svcAdapter(auth));
 * app.route('/admin', svcAdminConsole({ ...auth, signInUrl: '/login' }));
 */
export function svcAdminConsole(opts: SvcAdminConsoleOptions): Hono {
  const core = createAdapterCore(opts, 'svc-hono-adapter', 'svcAdminConsole');
  const settings = consoleSettings(opts);
  const app = new Hono({ strict: false });

  app.get('/assets/:name', (c) => {
    const asset = ASSETS[c.req.param('name')];
    if (!asset) return c.json({ error: 'not_found' }, 404);
    return c.body(asset.body, 200, { 'content-type': asset.type, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
  });

  for (const entry of CONSOLE_API_ROUTES) {
    app.on(entry.route.method, `/api${entry.route.path}`, (c) =>
      serve(c, core, (req) => handleConsoleApi(core, entry, { ...req, transportHeader: undefined })),
    );
  }
  app.all('/api/*', (c) => c.json({ error: 'not_found', message: 'Not found' }, 404));

  app.get('/events.csv', async (c) =>
    withSession(c, core, settings, baseOf(c, '/events.csv'), async (session, ctx) => {
      const out = await exportEventsCsv(ctx);
      if (!out.ok) return new Response(JSON.stringify(out.body), { status: out.status, headers: pageHeaders(core, session, { 'content-type': 'application/json; charset=utf-8' }) });
      const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
      return new Response(out.csv, {
        status: 200,
        headers: pageHeaders(core, session, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="auth-events-${stamp}.csv"`, 'x-svc-truncated': String(out.truncated) }),
      });
    }),
  );

  for (const [pattern, screen] of SCREENS) {
    app.get(pattern, async (c) => {
      const base = baseOf(c, pattern);
      return withSession(c, core, settings, base, async (session, ctx) => {
        const page = await screen(ctx);
        const markup = renderLayout(ctx, page, c.req.path.slice(base.length) || '/');
        return new Response(markup.value, { status: page.status ?? 200, headers: pageHeaders(core, session, { 'content-type': 'text/html; charset=utf-8' }) });
      });
    });
  }
  return app;
}

export type { SvcAdminConsoleOptions } from './options.js';
