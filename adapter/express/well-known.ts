/** `svcExpressWellKnown(opts)`: the association files at the app root. */
import express, { type Router } from 'express';
import { createAdapterCore } from '../core/core.js';
import type { SvcAdapterOptions } from '../core/options.js';
import { handleWellKnownRequest, WELL_KNOWN_ROUTES } from '../core/well-known.js';
import { tableRouter } from './router.js';
import { rootMetadataRouter } from './oauth-server.js';

const ROUTES = WELL_KNOWN_ROUTES.map((route) => ({ ...route, method: 'GET' as const }));

/**
 * The Express twin of `svcWellKnown`: `GET /.well-known/assetlinks.json`,
 * `/.well-known/apple-app-site-association` and `/.well-known/webauthn`.
 * Mount it at the root.
 *
 * @example
 * app.use(svcExpressWellKnown(opts));
 * app.use('/auth', svcExpressAdapter(opts));
 */
export function svcExpressWellKnown(opts: SvcAdapterOptions): Router {
  const core = createAdapterCore(opts, 'svc-express-adapter', 'svcExpressWellKnown');
  const router = express.Router({ caseSensitive: true, strict: true });
  router.use(tableRouter(core, ROUTES, (route) => handleWellKnownRequest(core, route)));
  // The provider's RFC 8414 path-inserted metadata (`/.well-known/oauth-authorization-server/auth`).
  router.use(rootMetadataRouter(core));
  return router;
}
