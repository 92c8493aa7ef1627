/**
 * `svc-auth/hono`: the Hono adapter. `svcAdapter(opts)` returns a Hono app
 * with every route of the core route table; mount it with
 * `app.route('/auth', svcAdapter(opts))`.
 */
import { Hono } from 'hono';
import { createAdapterCore } from '../core/core.js';
import type { SvcAdapterOptions } from '../core/options.js';
import { handleAdapterRequest } from '../core/pipeline.js';
import { OAUTH_SERVER_ROUTES, ROUTES, type HttpMethod } from '../../common/route-table.js';
import { addMethodFallbacks } from './method-fallback.js';
import { mountOAuthServer } from './oauth-server.js';
import { serve } from './serve.js';
import type { SvcVariables } from './middleware.js';

/** The preflights are left out of the 405 fallbacks (OPTIONS is never a 405 there). */
const isTableMethod = <T extends { method: string }>(r: T): r is T & { method: HttpMethod } => r.method !== 'OPTIONS';

/**
 * The adapter app. Construction validates the options and throws with a
 * message naming the option (contract §5.1).
 *
 * @example
 * import { Hono } from 'hono';
 * import { svcAdapter } from 'svc-auth/hono';
 *
 * const app = new Hono();
 * app.route('/auth', svcAdapter({
 *   authServerUrl: 'http://127.0.0.1:8787',
 *   cookieSecret: process.env.COOKIE_SECRET!,
 *   serviceSecret: process.env.API_SERVICE_TOKEN!,
 *   issuer: 'http://localhost:3000',
 *   audience: 'http://127.0.0.1:8787',
 * }));
 */
export function svcAdapter(opts: SvcAdapterOptions): Hono<{ Variables: SvcVariables }> {
  const core = createAdapterCore(opts, 'svc-hono-adapter', 'svcAdapter');
  const app = new Hono<{ Variables: SvcVariables }>({ strict: false });
  for (const route of ROUTES) {
    app.on(route.method, route.path, (c) => serve(c, core, (req) => handleAdapterRequest(core, route, req)));
  }
  // The provider's routes (docs/oauth-provider.md): the API answers 404 `oauth_server_disabled` while it is off.
  mountOAuthServer(app, core);
  addMethodFallbacks(app, core, [...ROUTES, ...OAUTH_SERVER_ROUTES.filter(isTableMethod)]);
  return app;
}

export { svcTotpBridge } from './bridge.js';
export { svcWellKnown } from './well-known.js';
export { getUser, requireAuth, requireRole, type SvcVariables } from './middleware.js';
export type { SvcAdapterOptions } from '../core/options.js';
export type { AuthUser, RequireAuthOptions } from '../core/user.js';
export type {
  AuthMessage,
  DeliveryResult,
  EmailMessage,
  MessagingOptions,
  SmsMessage,
} from '../../common/messaging.js';
export { svcAdminConsole, type SvcAdminConsoleOptions } from './admin-console.js';
export { oauthProtectedResource, requireOAuth, type OAuthVariables } from './oauth-resource.js';
export {
  protectedResourceMetadataPath,
  protectedResourceMetadataUrl,
  type OAuthClaims,
  type OAuthResourceOptions,
} from '../core/oauth-resource.js';
