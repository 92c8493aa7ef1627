/**
 * Shared answer shaping (contract §5.3 "passthrough", §5.13): `delivery` is
 * removed from every body; failures with a JSON-object body are forwarded with
 * status and body unchanged; other failures become `{error:"upstream_error"}`.
 */
import type { UpstreamResponse } from '../upstream.js';
import { failure, type HandlerResult } from '../result.js';

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A copy of `body` without the listed keys (non-objects are returned as they are). */
export function omit(body: unknown, ...keys: string[]): unknown {
  if (!isObject(body)) return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!keys.includes(k)) out[k] = v;
  return out;
}

/** `Retry-After` (423/429/503) and the RFC 9470 challenge; the pipeline drops the latter in cookie transport. */
function relayHeaders(res: { retryAfter: string | null; wwwAuthenticate?: string }): Partial<HandlerResult> {
  const headers: Record<string, string> = {};
  if (res.retryAfter) headers['retry-after'] = res.retryAfter;
  if (res.wwwAuthenticate) headers['www-authenticate'] = res.wwwAuthenticate;
  return Object.keys(headers).length ? { headers } : {};
}

/** 502 `upstream_unavailable` for an unreachable API (fetch failure or 10 s timeout). */
export const unreachable = (): HandlerResult => failure(502, 'upstream_unavailable');

/** Forwards a non-2xx upstream answer (contract §5.13). */
export function forwardFailure(res: Extract<UpstreamResponse, { ok: true }>): HandlerResult {
  if (isObject(res.body)) return { status: res.status, body: omit(res.body, 'delivery'), ...relayHeaders(res) };
  const status = res.status >= 500 ? 502 : res.status;
  return failure(status, 'upstream_error', null, relayHeaders(res));
}

/** Passthrough: upstream status and body, minus `delivery`; failures per §5.13. */
export function passthrough(res: UpstreamResponse): HandlerResult {
  if (!res.ok) return unreachable();
  if (res.status < 200 || res.status >= 300) return forwardFailure(res);
  return {
    status: res.status,
    body: res.status === 204 ? undefined : omit(res.body, 'delivery'),
    ...relayHeaders(res),
  };
}

export const is2xx = (res: UpstreamResponse): res is Extract<UpstreamResponse, { ok: true }> =>
  res.ok && res.status >= 200 && res.status < 300;
