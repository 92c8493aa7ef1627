/**
 * Magic-link confirmation in the adapter (`magic_link_confirmation`).
 * With `same_device` the API answers the request with a `binding` that only
 * the asking browser may present. In cookie transport the page never sees it:
 * it goes into a signed HttpOnly cookie for the link's lifetime, and the
 * verify route puts it back into the upstream body. A link opened in another
 * browser then carries no binding and is refused. Bearer clients (apps) keep
 * the binding themselves and send it with the verify. `number` (number_match)
 * passes through as the client sent it.
 */
import type { AdapterCore } from '../core.js';
import type { HandlerResult } from '../result.js';
import type { Transport } from '../session-result.js';
import type { UpstreamResponse } from '../upstream.js';
import { collectDeliveries } from './delivery.js';
import { bindingCookie, readBindingCookie, takeBinding, withBinding } from './flow-binding.js';
import { is2xx, isObject, passthrough } from './forward.js';

/** The API's link lifetime (contract §3.5: 15 minutes); the cookie need not outlive it. */
export const MAGIC_LINK_TTL_SECONDS = 15 * 60;

/** `POST /magic-link`: deliveries as any `D` route; in cookie transport the binding becomes the cookie. */
export function magicLinkRequest(core: AdapterCore, res: UpstreamResponse, transport: Transport): HandlerResult {
  const out = passthrough(res);
  if (!is2xx(res)) return out;
  out.deliveries = collectDeliveries(core, res.body);
  if (transport === 'bearer') return out;
  const { body, binding } = takeBinding(out.body);
  if (!binding) return out;
  return {
    ...out,
    body,
    setCookies: [bindingCookie(core.opts.names.magicLink, { kind: 'magic_link', binding }, MAGIC_LINK_TTL_SECONDS)],
  };
}

/**
 * The upstream verify body in cookie transport: the client's `number` (if
 * any) and the binding from this browser's cookie — never a `binding` the
 * page wrote itself, so only the cookie proves "the browser that asked".
 */
export function withMagicLinkBinding(
  core: AdapterCore,
  body: unknown,
  cookies: Record<string, string> | undefined,
): unknown {
  const cookie = readBindingCookie(core, core.opts.names.magicLink, 'magic_link', cookies);
  if (cookie) return withBinding(isObject(body) ? body : {}, cookie.binding);
  return takeBinding(body).body;
}

/** The verify's answer as it is; a completed link also clears the binding cookie it was sent with (it is spent). */
export function magicLinkVerified(
  core: AdapterCore,
  res: UpstreamResponse,
  transport: Transport,
  cookies: Record<string, string> | undefined,
): HandlerResult {
  const out = passthrough(res);
  const name = core.opts.names.magicLink;
  if (
    transport === 'cookie' &&
    cookies?.[name] &&
    is2xx(res) &&
    isObject(res.body) &&
    res.body['message'] === 'Success'
  )
    out.clearCookies = [name];
  return out;
}
