/**
 * Trusted client context (contract §3.0 step 2, §0.2). A valid service token
 * lets `x-svc-client-ip` / `x-svc-client-user-agent` replace the connection
 * values (and `x-svc-client-geo` supplies a coarse place) and unlocks external delivery; an invalid one is silently
 * ignored (plus a `service_token_failed` event). Without one, the place comes from the headers named in
 * `CLIENT_PLACE_HEADER` or Cloudflare's `request.cf` (docs/devices.md).
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { TrustProxy } from '../config/env.js';
import type { AppEnv, Deps } from '../deps.js';
import { requestHeader } from '../../common/hono-request.js';
import { placeLabel } from '../services/magic-link/requested-by.js';
import { parseIp, rateLimitKey, type IpAddress } from '../http/ip-address.js';

/** Returns the socket address of a request, when the runtime exposes it. */
export type ConnectionIp = (c: Context) => string | undefined;

export const truncateUa = (ua: string | undefined | null): string | null => {
  const t = ua?.trim();
  return t ? t.slice(0, 512) : null;
};

/**
 * Cloudflare's geolocation of the connecting client (`request.cf` on Workers).
 * Only for an untrusted (direct) call: behind the adapter it would place the adapter.
 */
function cloudflarePlace(c: Context): string | null {
  const cf = (c.req.raw as { cf?: { city?: unknown; country?: unknown } }).cf;
  if (!cf) return null;
  const parts = [cf.city, cf.country].filter((p): p is string => typeof p === 'string' && p.length > 0);
  return placeLabel(parts.join(', '));
}

/** `%`-decoded when it decodes (Vercel's `x-vercel-ip-city` is URL-encoded), else as sent. */
function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * The place from the headers the operator named in `CLIENT_PLACE_HEADER` (their edge sets them; a client
 * cannot reach the API around it), joined in the configured order: `cf-ipcity,cf-ipcountry` → `Paris, FR`.
 */
function configuredPlace(c: Context, headers: readonly string[]): string | null {
  if (headers.length === 0) return null;
  const parts = headers.map((h) => decoded(requestHeader(c, h)?.trim() ?? '')).filter((v) => v.length > 0);
  return placeLabel(parts.join(', '));
}

function proxiedAddress(c: Context, trust: TrustProxy, connectionIp: ConnectionIp): IpAddress | null {
  if (trust.mode === 'xff') {
    const parts = (requestHeader(c, 'x-forwarded-for') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    return parseIp(parts[parts.length - trust.hops]);
  }
  return parseIp(connectionIp(c));
}

export function clientContext(deps: Deps, connectionIp: ConnectionIp) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const startedAtMs = deps.clock.now();
    // The connection's address is asked for only when no trusted forwarded one replaces it: behind the
    // adapter (every forwarded call) Bun's `requestIP` and the address parse cost a few µs for nothing.
    let address: IpAddress | null | undefined;
    let userAgent: string | null | undefined;
    let trusted = false;
    const header = requestHeader(c, 'x-svc-service-token');
    if (header) {
      const result = await deps.verifyServiceToken(header, startedAtMs);
      if (result.ok) {
        trusted = true;
        const forwardedIp = requestHeader(c, 'x-svc-client-ip');
        if (forwardedIp !== undefined) address = parseIp(forwardedIp.split(',')[0]) ?? undefined;
        const forwardedUa = requestHeader(c, 'x-svc-client-user-agent');
        if (forwardedUa !== undefined) userAgent = truncateUa(forwardedUa);
      } else {
        await deps.events.record({
          type: 'service_token_failed',
          ipAddress: proxiedAddress(c, deps.env.trustProxy, connectionIp)?.text ?? null,
          userAgent: truncateUa(requestHeader(c, 'user-agent')),
          metadata: { reason: result.reason },
        });
      }
    }
    if (address === undefined) address = proxiedAddress(c, deps.env.trustProxy, connectionIp);
    const ip = address?.text ?? null;
    if (userAgent === undefined) userAgent = truncateUa(requestHeader(c, 'user-agent'));
    const externalDelivery =
      trusted && requestHeader(c, 'x-svc-auth-delivery-mode')?.trim().toLowerCase() === 'external';
    c.set('client', {
      ip,
      // Per-IP limiters count this: an IPv6 client by its prefix.
      ipKey: address ? rateLimitKey(address, deps.env.rateLimitIpv6PrefixBits) : null,
      userAgent,
      trusted,
      externalDelivery,
      startedAtMs,
      // Read only where it is stored or shown (sign-in, refresh, magic-link request): no parsing on other requests.
      // With a service token only the adapter's header counts: this request's own edge headers or `cf` would place
      // the adapter. Without one: the operator's configured headers, else Cloudflare's `cf`.
      get place() {
        if (trusted) return placeLabel(requestHeader(c, 'x-svc-client-geo'));
        return configuredPlace(c, deps.env.clientPlaceHeaders) ?? cloudflarePlace(c);
      },
    });
    await next();
  });
}
