/** The 405 fallbacks of a route table on a Hono app (adapter/core/method-not-allowed.ts). */
import type { Env, Hono } from 'hono';
import type { AdapterCore } from '../core/core.js';
import { HOST_METHODS, methodFallbacks, methodNotAllowed } from '../core/method-not-allowed.js';
import type { HttpMethod } from '../../common/route-table.js';
import { respond } from './respond.js';

/** Call after the table's routes: a request reaching one of these matched the path but none of its methods. */
export function addMethodFallbacks<E extends Env>(
  app: Hono<E>,
  core: AdapterCore,
  routes: readonly { method: HttpMethod; path: string }[],
): void {
  for (const { path, allow } of methodFallbacks(routes)) {
    app.all(path, async (c, next) => {
      if (HOST_METHODS.has(c.req.method.toUpperCase())) return next();
      return respond(c, core, methodNotAllowed(allow(c.req.path)));
    });
  }
}
