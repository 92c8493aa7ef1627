/**
 * OAuth flow binding in cookie transport (login CSRF). The API's
 * start returns a random `binding` that its callback requires; a browser page
 * never sees it. Start moves it into a signed HttpOnly cookie
 * (`svc-oauth-binding`, the state's 10-minute lifetime), and the callback
 * sends the cookie's binding upstream, whatever the page put in the body. A
 * browser that did not start the flow (a victim handed the attacker's
 * callback URL) has no such cookie: 400 `oauth_invalid_state` with no
 * upstream call. Bearer transport (native apps) passes `binding` through both
 * ways: the app keeps it with its pending flow.
 */
import type { AdapterCore } from '../core.js';
import type { HandlerResult } from '../result.js';
import { sessionResult, type Transport } from '../session-result.js';
import type { UpstreamResponse } from '../upstream.js';
import { failure } from '../result.js';
import { bindingCookie, readBindingCookie, takeBinding, withBinding } from './flow-binding.js';
import { is2xx, isObject, omit, passthrough } from './forward.js';

/** The API's state lifetime (contract §1.9): the binding is useless after it. */
export const OAUTH_BINDING_MAX_AGE_SECONDS = 600;

/** The API's own answer for a bad state, so a missing cookie reveals nothing more (contract §0.4). */
const invalidState = (extra: Partial<HandlerResult> = {}): HandlerResult => ({
  status: 400,
  body: { error: 'oauth_invalid_state', message: 'Invalid OAuth state' },
  ...extra,
});

/** `POST /oauth/:providerId/start`: cookie transport keeps the binding out of the body and in its cookie. */
export function oauthStart(
  core: AdapterCore,
  res: UpstreamResponse,
  transport: Transport,
  providerId: string,
): HandlerResult {
  if (transport === 'bearer' || !is2xx(res) || !isObject(res.body)) return passthrough(res);
  const { body, binding } = takeBinding(res.body);
  // Without a binding the callback could never succeed; say so now rather than after the provider round trip.
  if (!binding) return failure(502, 'invalid_upstream_response');
  return {
    status: res.status,
    body: omit(body, 'delivery'),
    setCookies: [
      bindingCookie(
        core.opts.names.oauthBinding,
        { kind: 'oauth_binding', providerId, binding },
        OAUTH_BINDING_MAX_AGE_SECONDS,
      ),
    ],
  };
}

/**
 * The callback body to send upstream in cookie transport: the page's body with
 * the binding of a valid cookie for this provider (a `binding` the page sent is
 * replaced: an attacker knows his own). No valid cookie → the API's 400, no
 * upstream call; a cookie that fails verification is cleared.
 */
export function boundCallbackBody(
  core: AdapterCore,
  providerId: string,
  cookies: Record<string, string>,
  body: unknown,
): { ok: true; body: unknown } | { ok: false; result: HandlerResult } {
  const name = core.opts.names.oauthBinding;
  const cookie = readBindingCookie(core, name, 'oauth_binding', cookies);
  if (!cookie) return { ok: false, result: invalidState(cookies[name] ? { clearCookies: [name] } : {}) };
  if (cookie.providerId !== providerId) return { ok: false, result: invalidState() };
  return { ok: true, body: withBinding(body, cookie.binding) };
}

/**
 * The callback's answer: the session result (§5.4), and in cookie transport the
 * binding cookie cleared once the API has decided (any answer but 5xx or
 * unreachable, after which the same flow may be retried).
 */
export async function oauthCallback(
  core: AdapterCore,
  res: UpstreamResponse,
  transport: Transport,
): Promise<HandlerResult> {
  const out = is2xx(res) ? await sessionResult(core, res.status, res.body, transport) : passthrough(res);
  if (transport === 'cookie' && res.ok && res.status < 500)
    out.clearCookies = [...(out.clearCookies ?? []), core.opts.names.oauthBinding];
  return out;
}
