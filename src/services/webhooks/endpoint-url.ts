/**
 * Which URLs an event webhook may be sent to (SSRF). The API makes these
 * requests itself, so an admin-set URL must not turn it into a client of the
 * machine, its private network or a cloud metadata endpoint. In production:
 * https only; not the API's own origin (ISSUER); no loopback, private,
 * link-local, unique-local or special address in any literal form
 * (config/internal-host.ts judges the WHATWG-normalised host, where `2130706433`,
 * `0x7f.1` and `[::ffff:127.0.0.1]` already read as 127.0.0.1 / `[::ffff:7f00:1]`),
 * plus the IPv6 forms that embed an IPv4 address. Outside production http and
 * loopback are allowed (tests and local receivers), the API's own origin never.
 * A public name that resolves to a private address is not caught (no DNS on
 * Workers): docs/security.md says so. Credentials in the URL are refused in
 * every mode (they would be sent, and shown in lists).
 */
import { isInternalHost } from '../../config/internal-host.js';
import { parseUrl } from '../../config/oauth-provider.js';

export const WEBHOOK_URL_MAX_LENGTH = 2000;

/** IPv6 literals that carry an IPv4 address in their last 32 bits: IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`). */
function embeddedIpv4(host: string): string | null {
  const m = /^\[(::|64:ff9b::|::ffff:0:)([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(host);
  if (!m) return null;
  const hi = parseInt(m[2]!, 16);
  const lo = parseInt(m[3]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** 6to4 (`2002:AABB:CCDD::/48`) names the IPv4 address AABB:CCDD. */
function sixToFourIpv4(host: string): string | null {
  const m = /^\[2002:([0-9a-f]{1,4}):([0-9a-f]{1,4})(:|\])/.exec(host);
  if (!m) return null;
  const hi = parseInt(m[1]!, 16);
  const lo = parseInt(m[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

function internal(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (isInternalHost(host)) return true;
  const v4 = embeddedIpv4(host) ?? sixToFourIpv4(host);
  return v4 !== null && isInternalHost(v4);
}

/** Why this URL may not receive webhooks, or null when it may. */
export function webhookUrlProblem(value: string, opts: { production: boolean; issuer: string }): string | null {
  if (value.length > WEBHOOK_URL_MAX_LENGTH) return `must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`;
  const url = parseUrl(value);
  if (!url) return 'must be an absolute URL';
  if (opts.production ? url.protocol !== 'https:' : url.protocol !== 'https:' && url.protocol !== 'http:')
    return opts.production ? 'must be an https URL' : 'must be an http(s) URL';
  if (url.username || url.password) return 'must not carry credentials';
  const issuer = parseUrl(opts.issuer);
  if (issuer && (url.origin === issuer.origin || (opts.production && url.hostname === issuer.hostname)))
    return 'must not point at this service';
  if (opts.production && internal(url.hostname))
    return 'must not name an internal host (loopback, private, link-local, unique-local or a .local/.internal name)';
  return null;
}
