/** `svcExpressTotpBridge(opts)`: the opt-in TOTP bridge (contract §5.12), mounted at `/auth/totp`. */
import type { Router } from 'express';
import { handleBridgeRequest } from '../core/bridge.js';
import { createAdapterCore } from '../core/core.js';
import type { SvcAdapterOptions } from '../core/options.js';
import { TOTP_BRIDGE_ROUTES } from '../../common/route-table.js';
import { tableRouter } from './router.js';

/**
 * Browser access to the raw TOTP routes. It never refreshes: call an adapter
 * route such as `/auth/users/me` first when the access cookie may be stale.
 *
 * @example
 * app.use('/auth/totp', svcExpressTotpBridge(opts));
 * app.use('/auth', svcExpressAdapter(opts));
 */
export function svcExpressTotpBridge(opts: SvcAdapterOptions): Router {
  const core = createAdapterCore(opts, 'svc-express-adapter', 'svcExpressTotpBridge');
  return tableRouter(core, TOTP_BRIDGE_ROUTES, (route, req) => handleBridgeRequest(core, route, req));
}
