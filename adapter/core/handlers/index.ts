/**
 * `runRoute`: one upstream call for a route of the table and the response
 * handling its `response` kind names. The credential is already resolved
 * (ensureCookies or the client's bearer).
 */
import type { AdapterCore } from '../core.js';
import { failure, type HandlerResult } from '../result.js';
import type { RouteEntry } from '../../../common/route-table.js';
import { sessionResult, type Transport } from '../session-result.js';
import { fillPath, type ClientInfo } from '../upstream.js';
import { bearerFrom } from '../user.js';
import { deleteUser, logout, me, organizationSwitch, refreshRoute } from './account.js';
import { collectDeliveries } from './delivery.js';
import { ephemeralRenew, ephemeralStart } from './ephemeral.js';
import { withDevices } from '../device.js';
import { is2xx, passthrough } from './forward.js';
import { boundCallbackBody, oauthCallback, oauthStart } from './oauth.js';
import { magicLinkRequest, magicLinkVerified, withMagicLinkBinding } from './magic-link.js';

export interface RouteCall {
  transport: Transport;
  /** The route credential: a raw token (cookie transport) or null. */
  token: string | null;
  /** Bearer transport: the client's `Authorization`, forwarded verbatim. */
  authorization: string | null;
  /** `sub` of the cookie the credential came from (cookie transport). */
  credentialSub: string | null;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  client: ClientInfo;
  /**
   * Cookie transport: the request's cookies (the OAuth callback and the magic-link verify read their binding cookies).
   */
  cookies?: Record<string, string>;
  /** The client's `Idempotency-Key` (read only by `POST /auth/refresh`). */
  idempotencyKey?: string | undefined;
}

/**
 * `.` and `..` cannot travel as one segment (contract §5.2): URL parsers resolve them
 * (`%2e` too), so `/sessions/.` would reach `DELETE /sessions`. Express decodes
 * `%2e%2e` into such a parameter; standard clients never send one.
 */
const isDotSegment = (value: string) => value === '.' || value === '..';

export async function runRoute(core: AdapterCore, route: RouteEntry, call: RouteCall): Promise<HandlerResult> {
  if (Object.values(call.params).some(isDotSegment)) return failure(400, 'invalid_request', 'Invalid path parameter');
  const authorization = call.transport === 'bearer' ? call.authorization : call.token ? `Bearer ${call.token}` : null;
  if (route.response === 'refresh') {
    const token = call.transport === 'bearer' ? bearerFrom(call.authorization ?? undefined) : call.token;
    if (!token) return { status: 401, body: { error: 'unauthorized', message: 'Refresh token required' } };
    return refreshRoute(core, token, call.transport, call.credentialSub, call.client, call.idempotencyKey);
  }
  let body = call.body;
  if (route.response === 'oauth-callback' && call.transport === 'cookie') {
    const bound = boundCallbackBody(core, call.params['providerId'] ?? '', call.cookies ?? {}, call.body);
    if (!bound.ok) return bound.result;
    body = bound.body;
  }
  const res = await core.call({
    method: route.compat?.upstreamMethod ?? route.method,
    path: fillPath(route.raw, call.params),
    query: call.query,
    authorization: route.cred === 'none' ? null : authorization,
    body:
      route.response === 'magic-verify' && call.transport === 'cookie'
        ? withMagicLinkBinding(core, body, call.cookies)
        : body,
    client: call.client,
    delivery: route.svc === 'D',
  });
  switch (route.response) {
    case 'login':
      return ephemeralStart(core, res, call.transport, 'login');
    case 'register':
      return ephemeralStart(core, res, call.transport, 'registration');
    case 'ephemeral-renew':
      return ephemeralRenew(core, res, call.transport, route.cred === 'pre' ? 'pre' : 'reg', call.credentialSub);
    case 'session':
    case 'magic-check':
      return is2xx(res) ? sessionResult(core, res.status, res.body, call.transport) : passthrough(res);
    case 'magic-request':
      return magicLinkRequest(core, res, call.transport);
    case 'magic-verify':
      return magicLinkVerified(core, res, call.transport, call.cookies);
    case 'me':
      return me(core, res, call.transport);
    case 'delete-user':
      return deleteUser(core, res, call.transport);
    case 'logout':
      return logout(core, res, call.transport);
    case 'org-switch':
      return organizationSwitch(core, res, call.transport);
    case 'oauth-start':
      return oauthStart(core, res, call.transport, call.params['providerId'] ?? '');
    case 'oauth-callback':
      return oauthCallback(core, res, call.transport);
    case 'sessions': {
      const out = passthrough(res);
      return is2xx(res) ? { ...out, body: withDevices(out.body) } : out;
    }
    default: {
      const out = passthrough(res);
      if (route.svc === 'D' && is2xx(res)) out.deliveries = collectDeliveries(core, res.body);
      return out;
    }
  }
}
