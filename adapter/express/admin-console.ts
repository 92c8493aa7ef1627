/**
 * `svcExpressAdminConsole(opts)`: the admin console of `svc-auth/hono` as an
 * Express router, through the same framework-free pages, CSV export, assets
 * and console API (adapter/admin-console/ holds no Hono code outside its
 * `index.ts`).
 */
import express, { type Request, type Response, type Router } from 'express';
import { parseCookieHeader } from '../core/cookies.js';
import { createAdapterCore, type AdapterCore } from '../core/core.js';
import { clientIpOf, internalFailure } from '../core/wire.js';
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
import { clientPlace, defaultClientIp, header } from './request.js';
import { respond } from './respond.js';
import { tableRouter } from './router.js';

function write(res: Response, r: ConsoleResponse): void {
  res.status(r.status);
  for (const [name, value] of r.headers) {
    if (name === 'set-cookie') res.append(name, value);
    else res.setHeader(name, value);
  }
  res.end(r.body ?? undefined);
}

function toConsoleRequest(req: Request, core: AdapterCore): ConsoleRequest {
  const search = new URL(req.originalUrl, 'http://console.invalid').searchParams;
  return {
    base: req.baseUrl.replace(/\/+$/, ''),
    path: req.path || '/',
    originalUrl: req.originalUrl,
    cookies: parseCookieHeader(header(req, 'cookie')),
    client: {
      ip: clientIpOf(core.opts, req, defaultClientIp),
      userAgent: header(req, 'user-agent'),
      geo: clientPlace(req, core.opts),
    },
    params: { ...(req.params as Record<string, string>) },
    query: (name) => search.get(name)?.trim() || undefined,
  };
}

/**
 * The admin console for Express 5: the same screens, guard, origin guard,
 * step-up and CSP as `svcAdminConsole`. Mount it before any body parser.
 *
 * @example
 * import express from 'express';
 * import { svcExpressAdapter, svcExpressAdminConsole } from 'svc-auth/express';
 *
 * const app = express();
 * app.use('/auth', svcExpressAdapter(auth));
 * app.use('/admin', svcExpressAdminConsole({ ...auth, signInUrl: '/login' }));
 */
export function svcExpressAdminConsole(opts: SvcAdminConsoleOptions): Router {
  const core = createAdapterCore(opts, 'svc-express-adapter', 'svcExpressAdminConsole');
  const settings = consoleSettings(opts);
  const router = express.Router({ caseSensitive: true });
  const page = (run: (req: ConsoleRequest) => Promise<ConsoleResponse>) => async (req: Request, res: Response) => {
    try {
      write(res, await run(toConsoleRequest(req, core)));
    } catch (e) {
      if (res.headersSent) return void res.destroy();
      respond(res, core, internalFailure(core, req.method, req.originalUrl.split('?')[0] ?? '', e));
    }
  };
  const api = CONSOLE_API_ROUTES.map((entry) => ({ ...entry.route, entry }));
  router.use(
    '/api',
    tableRouter(core, api, (route, req) => handleConsoleApi(core, route.entry, { ...req, transportHeader: undefined })),
  );
  router.use('/api', (_req, res) =>
    respond(res, core, { status: 404, body: { error: 'not_found', message: 'Not found' } }),
  );
  router.get('/assets/:name', (req, res) => write(res, consoleAsset(String(req.params['name']))));
  router.get(
    '/events.csv',
    page((r) => consoleCsv(core, settings, r)),
  );
  for (const [pattern, screen] of SCREENS)
    router.get(
      pattern,
      page((r) => consolePage(core, settings, r, screen)),
    );
  return router;
}
