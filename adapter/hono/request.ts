/**
 * Hono → core: the pieces of a request the core pipeline needs. Body limits
 * (contract §5.13): > 100 KB → 413 `payload_too_large`; malformed JSON → 400.
 */
import type { Context } from 'hono';
import { getRuntimeKey } from 'hono/adapter';
import { parseCookieHeader } from '../core/cookies.js';
import type { ResolvedOptions } from '../core/options.js';
import type { AdapterRequest } from '../core/pipeline.js';
import type { HandlerResult } from '../core/result.js';
import { bodyless, bodyTooLarge, clientIpOf, decodeJsonBody, MAX_BODY_BYTES, type BodyOutcome } from '../core/wire.js';
import { placeFromHeaders } from '../core/place.js';
import { readBodyBytes, requestHeader } from '../../common/hono-request.js';

/** Whether this process runs on workerd: asked once, on the first request (the runtime cannot change). */
let onWorkerd: boolean | undefined;

/**
 * Default client address: `CF-Connecting-IP` on Workers, the socket address on Node and Bun; never `X-Forwarded-For`.
 */
export function defaultClientIp(c: Context): string | undefined {
  onWorkerd ??= getRuntimeKey() === 'workerd';
  if (onWorkerd) return c.req.header('cf-connecting-ip');
  const env = c.env as
    | { incoming?: { socket?: { remoteAddress?: string } }; requestIP?: (r: Request) => { address?: string } | null }
    | undefined;
  const nodeAddress = env?.incoming?.socket?.remoteAddress;
  if (nodeAddress) return nodeAddress;
  if (typeof env?.requestIP === 'function') {
    try {
      return env.requestIP(c.req.raw)?.address;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

async function readBody(c: Context): Promise<BodyOutcome> {
  if (bodyless(c.req.method)) return { ok: true, body: undefined };
  const read = await readBodyBytes(c, MAX_BODY_BYTES);
  if (read === 'too_large') return bodyTooLarge();
  return read === null ? { ok: true, body: undefined } : decodeJsonBody(read);
}

/** Builds the core request, or the 400/413 answer when the body is unusable. */
export async function toAdapterRequest(
  c: Context,
  opts: ResolvedOptions,
): Promise<{ ok: true; req: AdapterRequest } | { ok: false; result: HandlerResult }> {
  const parsed = await readBody(c);
  if (!parsed.ok) return parsed;
  const ip = clientIpOf(opts, c, defaultClientIp);
  return {
    ok: true,
    req: {
      method: c.req.method,
      transportHeader: requestHeader(c, 'x-svc-auth-transport'),
      authorization: requestHeader(c, 'authorization'),
      origin: requestHeader(c, 'origin'),
      secFetchSite: requestHeader(c, 'sec-fetch-site'),
      cookies: parseCookieHeader(requestHeader(c, 'cookie')),
      params: c.req.param() as Record<string, string>,
      query: c.req.queries() as Record<string, unknown>,
      body: parsed.body,
      client: {
        ip,
        userAgent: requestHeader(c, 'user-agent'),
        geo: clientPlace(c, opts),
        challengeToken: requestHeader(c, 'x-svc-challenge-token'),
      },
      idempotencyKey: requestHeader(c, 'idempotency-key'),
    },
  };
}

/**
 * The place sent as `x-svc-client-geo`: the operator's `clientPlaceHeader`, else `request.cf`. Every path that
 * may refresh (routes, middleware, console) sends it, so a rotated session keeps a place (docs/devices.md).
 */
export const clientPlace = (c: Context, opts: Pick<ResolvedOptions, 'clientPlaceHeaders'>): string | undefined =>
  placeFromHeaders(opts.clientPlaceHeaders, (n) => requestHeader(c, n)) ?? cloudflareGeo(c);

/** `City, CC` from Cloudflare's `request.cf` on Workers (shown in magic-link emails); undefined elsewhere. */
function cloudflareGeo(c: Context): string | undefined {
  const cf = (c.req.raw as { cf?: { city?: unknown; country?: unknown } }).cf;
  if (!cf) return undefined;
  const parts = [cf.city, cf.country].filter((p): p is string => typeof p === 'string' && p.length > 0);
  return parts.length ? parts.join(', ') : undefined;
}
