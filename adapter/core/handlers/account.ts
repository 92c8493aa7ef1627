/**
 * Signed-in routes with cookie side effects (contract §5.3, §5.5): `/users/me`
 * clears the ephemeral cookies, account deletion and logout clear everything,
 * organization switch re-sets the access cookie, `/refresh` per §5.7.
 */
import type { AdapterCore } from '../core.js';
import { INVALID_IDEMPOTENCY_KEY_MESSAGE, isIdempotencyKey } from '../../../common/idempotency-key.js';
import { allCookieNames, refreshCookies, refreshSession } from '../refresh-call.js';
import { failure, type HandlerResult } from '../result.js';
import { accessPayload, type Transport } from '../session-result.js';
import type { ClientInfo, UpstreamResponse } from '../upstream.js';
import { positiveSeconds, verifyUpstreamToken } from '../upstream-token.js';
import { is2xx, isObject, omit, passthrough } from './forward.js';

export function me(core: AdapterCore, res: UpstreamResponse, transport: Transport): HandlerResult {
  const out = passthrough(res);
  if (transport === 'cookie' && res.ok && res.status === 200)
    out.clearCookies = [core.opts.names.registration, core.opts.names.preAuth];
  return out;
}

export function deleteUser(core: AdapterCore, res: UpstreamResponse, transport: Transport): HandlerResult {
  const out = passthrough(res);
  if (transport === 'cookie' && res.ok && res.status === 200) out.clearCookies = allCookieNames(core);
  return out;
}

/** Upstream 2xx or 401 → 204; other failures forwarded. Cookies cleared unless 5xx or unreachable. */
export function logout(core: AdapterCore, res: UpstreamResponse, transport: Transport): HandlerResult {
  const done = res.ok && ((res.status >= 200 && res.status < 300) || res.status === 401);
  const out: HandlerResult = done ? { status: 204 } : passthrough(res);
  if (transport === 'cookie' && res.ok && res.status < 500) out.clearCookies = allCookieNames(core);
  return out;
}

export async function organizationSwitch(
  core: AdapterCore,
  res: UpstreamResponse,
  transport: Transport,
): Promise<HandlerResult> {
  if (!is2xx(res) || !isObject(res.body)) return passthrough(res);
  const body = omit(res.body, 'delivery') as Record<string, unknown>;
  const check = await verifyUpstreamToken(core, body['token'], {
    typ: 'access',
    sub: body['sub'],
    sid: body['sessionId'],
  });
  if (!check.ok) return check.result;
  if (transport === 'bearer') return { status: res.status, body };
  const ttl = positiveSeconds(body['ttl']);
  if (ttl === null) return failure(502, 'invalid_upstream_response');
  return {
    status: res.status,
    body: omit(body, 'token'),
    setCookies: [{ name: core.opts.names.access, payload: accessPayload(body), maxAge: ttl }],
  };
}

const REFRESH_BODY_KEYS = [
  'message',
  'sub',
  'sessionId',
  'organizationId',
  'roles',
  'email',
  'phone',
  'ttl',
  'refreshTtl',
];

/**
 * `POST /auth/refresh` (contract §5.7); `cookieSub` is the refresh cookie's `sub` in cookie transport;
 * `idempotencyKey` the client's `Idempotency-Key`, forwarded when well-formed
 * (a malformed one is 400, as the API answers it).
 */
export async function refreshRoute(
  core: AdapterCore,
  refreshToken: string,
  transport: Transport,
  cookieSub: string | null,
  client: ClientInfo,
  idempotencyKey?: string | null,
): Promise<HandlerResult> {
  if (idempotencyKey !== undefined && idempotencyKey !== null && !isIdempotencyKey(idempotencyKey))
    return failure(400, 'invalid_request', INVALID_IDEMPOTENCY_KEY_MESSAGE);
  const value = await refreshSession(core, refreshToken, client, idempotencyKey ?? undefined);
  if (value.kind === 'failed') {
    if (transport === 'cookie' && value.upstreamStatus === 401)
      return { ...value.result, clearCookies: allCookieNames(core) };
    return value.result;
  }
  if (transport === 'bearer') return { status: 200, body: value.envelope };
  if (value.envelope['sub'] !== cookieSub) return failure(502, 'invalid_upstream_response');
  const body: Record<string, unknown> = {};
  for (const k of REFRESH_BODY_KEYS) if (k in value.envelope) body[k] = value.envelope[k];
  return { status: 200, body, setCookies: refreshCookies(core, value) };
}
