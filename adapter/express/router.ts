/** Builds an Express router from a route table: one handler per entry, the same matching rules as the Hono layer. */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { AdapterCore } from '../core/core.js';
import type { AdapterRequest } from '../core/pipeline.js';
import { failure, type HandlerResult } from '../core/result.js';
import { HOST_METHODS, methodFallbacks, methodNotAllowed } from '../core/method-not-allowed.js';
import type { HttpMethod } from '../../common/route-table.js';
import { respond } from './respond.js';
import { serve } from './serve.js';

const VERBS = { GET: 'get', POST: 'post', PATCH: 'patch', DELETE: 'delete' } as const;

/**
 * Exact paths as a default Hono app matches them: case-sensitive, and a
 * trailing slash is another path. A path outside the table, and OPTIONS, fall
 * through to the application; another method on a table path answers 405
 * with `Allow` (adapter/core/method-not-allowed.ts).
 */
export function tableRouter<R extends { method: HttpMethod; path: string }>(
  core: AdapterCore,
  routes: readonly R[],
  handle: (route: R, req: AdapterRequest) => Promise<HandlerResult>,
  /** Routes registered first, on the same router (the provider's, whose preflights answer OPTIONS). */
  before?: (router: Router) => void,
): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  before?.(router);
  // No adapter route answers OPTIONS: leave before any route matches, or the router's automatic
  // `Allow` answer would shadow the application's CORS preflight (Hono falls through too).
  router.use((req, _res, next) => next(req.method === 'OPTIONS' ? 'router' : undefined));
  for (const route of routes) router.route(route.path)[VERBS[route.method]](serve(core, (req) => handle(route, req)));
  for (const { path, allow } of methodFallbacks(routes))
    router.all(path, (req, res, next) =>
      HOST_METHODS.has(req.method.toUpperCase()) ? next() : respond(res, core, methodNotAllowed(allow(req.path))),
    );
  // A malformed escape in a path parameter (`/sessions/%E0%A4%A`) makes the router's decode throw a
  // URIError while matching one of these routes: answer JSON (contract §5.13), not Express's HTML page.
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (err instanceof URIError) respond(res, core, failure(400, 'invalid_request', 'Malformed path parameter'));
    else next(err);
  });
  return router;
}
