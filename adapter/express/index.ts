/**
 * `svc-auth/express`: the Express 5 twin of `svc-auth/hono` (contract §5.14).
 * `svcExpressAdapter(opts)` returns a `Router` with every route of the core
 * route table; mount it with `app.use('/auth', svcExpressAdapter(opts))`.
 * Node only; `express` is an optional peer dependency.
 */
import type { Router } from 'express';
import { createAdapterCore } from '../core/core.js';
import type { SvcAdapterOptions } from '../core/options.js';
import { handleAdapterRequest } from '../core/pipeline.js';
import { ROUTES } from '../../common/route-table.js';
import { tableRouter } from './router.js';
import { mountOAuthServer } from './oauth-server.js';
import './types.js';
// Express runs on Node: the `node:http` transport is its default upstream `fetch`.
import '../node/default-transport.js';

/**
 * The adapter router: the same options, routes, statuses, bodies and
 * `Set-Cookie` lists as `svcAdapter`. It parses its own bodies (100 KB), so
 * mount it before any application body parser. Construction validates the
 * options and throws with a message naming the option (contract §5.1).
 *
 * @example
 * import express from 'express';
 * import { svcExpressAdapter } from 'svc-auth/express';
 *
 * const app = express();
 * app.use('/auth', svcExpressAdapter({
 *   authServerUrl: 'http://127.0.0.1:8787',
 *   cookieSecret: process.env.COOKIE_SECRET!,
 *   serviceSecret: process.env.API_SERVICE_TOKEN!,
 *   issuer: 'http://localhost:3000',
 *   audience: 'http://127.0.0.1:8787',
 * }));
 */
export function svcExpressAdapter(opts: SvcAdapterOptions): Router {
  const core = createAdapterCore(opts, 'svc-express-adapter', 'svcExpressAdapter');
  // The provider's routes (docs/oauth-provider.md) first: their CORS preflights must answer OPTIONS.
  return tableRouter(
    core,
    ROUTES,
    (route, req) => handleAdapterRequest(core, route, req),
    (router) => mountOAuthServer(router, core),
  );
}

export { svcExpressTotpBridge } from './bridge.js';
export { svcExpressWellKnown } from './well-known.js';
export { svcExpressAdminConsole } from './admin-console.js';
export type { SvcAdminConsoleOptions } from '../admin-console/options.js';
export { getUser, requireAuth, requireRole } from './middleware.js';
export type { ExpressUser } from './types.js';
export type { SvcAdapterOptions } from '../core/options.js';
export type { AuthUser, RequireAuthOptions } from '../core/user.js';
export type {
  AuthMessage,
  DeliveryResult,
  EmailMessage,
  MessagingOptions,
  SmsMessage,
} from '../../common/messaging.js';
export { oauthProtectedResource, requireOAuth } from './oauth-resource.js';
export {
  protectedResourceMetadataPath,
  protectedResourceMetadataUrl,
  type OAuthClaims,
  type OAuthResourceOptions,
} from '../core/oauth-resource.js';
