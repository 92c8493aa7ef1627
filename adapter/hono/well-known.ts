/** `svcWellKnown(opts)`: the association files at the app root. */
import { Hono } from 'hono';
import { createAdapterCore } from '../core/core.js';
import type { SvcAdapterOptions } from '../core/options.js';
import { handleWellKnownRequest, WELL_KNOWN_ROUTES } from '../core/well-known.js';
import { addMethodFallbacks } from './method-fallback.js';
import { serve } from './serve.js';
import { mountRootMetadata } from './oauth-server.js';

/**
 * `GET /.well-known/assetlinks.json`, `/.well-known/apple-app-site-association`
 * and `/.well-known/webauthn`, generated from the API's `native_apps` and
 * `origins` config. The operating systems look for them at the domain root,
 * so mount this at `/`, not under `/auth`. Same options as `svcAdapter`
 * (pass the same object to share its caches).
 *
 * @example
 * app.route('/', svcWellKnown(opts));
 * app.route('/auth', svcAdapter(opts));
 */
export function svcWellKnown(opts: SvcAdapterOptions): Hono {
  const core = createAdapterCore(opts, 'svc-hono-adapter', 'svcWellKnown');
  const app = new Hono({ strict: true });
  for (const route of WELL_KNOWN_ROUTES)
    app.get(route.path, (c) => serve(c, core, () => handleWellKnownRequest(core, route)));
  // The provider's RFC 8414 path-inserted metadata (`/.well-known/oauth-authorization-server/auth`).
  mountRootMetadata(app, core);
  // Another method on one of the three paths: 405 with Allow, as the Express twin's table router answers.
  addMethodFallbacks(
    app,
    core,
    WELL_KNOWN_ROUTES.map((r) => ({ method: 'GET' as const, path: r.path })),
  );
  return app;
}
