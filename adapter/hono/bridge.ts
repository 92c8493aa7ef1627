/** `svcTotpBridge(opts)`: the opt-in TOTP bridge (contract §5.12), mounted at `/auth/totp`. */
import { Hono } from 'hono';
import { handleBridgeRequest } from '../core/bridge.js';
import { createAdapterCore } from '../core/core.js';
import type { SvcAdapterOptions } from '../core/options.js';
import { TOTP_BRIDGE_ROUTES } from '../../common/route-table.js';
import { addMethodFallbacks } from './method-fallback.js';
import { serve } from './serve.js';
import type { SvcVariables } from './middleware.js';

/**
 * Browser access to the raw TOTP routes. It never refreshes: call an adapter
 * route such as `/auth/users/me` first when the access cookie may be stale.
 *
 * @example
 * app.route('/auth', svcAdapter(opts));
 * app.route('/auth/totp', svcTotpBridge(opts));
 */
export function svcTotpBridge(opts: SvcAdapterOptions): Hono<{ Variables: SvcVariables }> {
  const core = createAdapterCore(opts, 'svc-hono-adapter', 'svcTotpBridge');
  const app = new Hono<{ Variables: SvcVariables }>({ strict: false });
  for (const route of TOTP_BRIDGE_ROUTES) {
    app.on(route.method, route.path, (c) => serve(c, core, (req) => handleBridgeRequest(core, route, req)));
  }
  addMethodFallbacks(app, core, TOTP_BRIDGE_ROUTES);
  return app;
}
