/**
 * `svcAdminConsole(opts)`: the admin console as a Hono app, mounted with
 * `app.route('/admin', svcAdminConsole(opts))`. Server-rendered pages read the
 * auth API as the signed-in admin; the page script sends writes to the
 * console's own `/api` routes (the adapter core, origin-guarded, `admin:write`).
 */
import { Hono, type Context } from 'hono';
import { parseCookieHeader } from '../core/cookies.js';
import { createAdapterCore } from '../core/core.js';
import { clientIpOf } from '../core/wire.js';
import { clientPlace, defaultClientIp } from './request.js';
import { serve } from './serve.js';
import { CONSOLE_API_ROUTES, handleConsoleApi } from '../admin-console/api-routes.js';
import {
  consoleAsset,
  consoleCsv,
  consolePage,
  SCREENS,
  type ConsoleRequest,
  type ConsoleResponse,
} from '../admin-console/console-http.js';
import { consoleSettings, type SvcAdminConsoleOptions } from '../admin-console/options.js';

export { CONSOLE_CSP } from '../admin-console/console-http.js';

/** The mount path: the matched route pattern minus the pattern this app registered. */
function baseOf(c: Context, pattern: string): string {
  const full = c.req.routePath;
  const base = pattern === '/' ? full : full.slice(0, full.length - pattern.length);
  return base.replace(/\/+$/, '');
}

const send = (r: ConsoleResponse) => new Response(r.body, { status: r.status, headers: r.headers });

/**
 * The admin console. Pass the options you give `svcAdapter`, plus `title`,
 * `signInUrl` and `pageSize` if you like. Pages need `admin:read`; writes
 * need `admin:write` and pass the adapter's origin guard; when the API asks
 * for a fresh step-up the page runs the passkey or authenticator-code
 * ceremony and retries.
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
  const request = (c: Context, pattern: string): ConsoleRequest => {
    const base = baseOf(c, pattern);
    const url = new URL(c.req.url);
    return {
      base,
      path: c.req.path.slice(base.length) || '/',
      originalUrl: url.pathname + url.search,
      cookies: parseCookieHeader(c.req.header('cookie')),
      client: {
        ip: clientIpOf(core.opts, c, defaultClientIp),
        userAgent: c.req.header('user-agent'),
        geo: clientPlace(c, core.opts),
      },
      params: c.req.param() as Record<string, string>,
      query: (name) => c.req.query(name)?.trim() || undefined,
    };
  };

  app.get('/assets/:name', (c) => send(consoleAsset(c.req.param('name'))));
  for (const entry of CONSOLE_API_ROUTES) {
    // Cookie transport only: the console never acts on a bearer token a page script might send.
    app.on(entry.route.method, `/api${entry.route.path}`, (c) =>
      serve(c, core, (req) => handleConsoleApi(core, entry, { ...req, transportHeader: undefined })),
    );
  }
  app.all('/api/*', (c) => c.json({ error: 'not_found', message: 'Not found' }, 404));
  app.get('/events.csv', async (c) => send(await consoleCsv(core, settings, request(c, '/events.csv'))));
  for (const [pattern, screen] of SCREENS)
    app.get(pattern, async (c) => send(await consolePage(core, settings, request(c, pattern), screen)));
  return app;
}

export type { SvcAdminConsoleOptions } from '../admin-console/options.js';
