/**
 * Origin guard (contract §5.11), active in every SameSite mode (because
 * `Lax`/`Strict` cookies still travel with a sibling subdomain's
 * POST, which is same-site). It never gates GET, HEAD, OPTIONS or bearer
 * transport, and it runs before ensureCookies so a blocked request never
 * refreshes. The adapter routes, the TOTP bridge and the admin console's API
 * all call `originAllowed`.
 *
 * Amended (docs/contract-changes.md): an `Origin` that is present
 * and not allowed is refused whatever `Sec-Fetch-Site` says — `same-site`
 * covers every sibling subdomain, so trusting it let any of them post to the
 * cookie routes. `same-site` alone (no `Origin`, which no current browser
 * omits on a cross-origin POST) is refused too.
 */
export interface OriginGuardInput {
  method: string;
  origin: string | undefined;
  secFetchSite: string | undefined;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True when the request may proceed. `allowed` holds lower-cased origins. */
export function originAllowed(input: OriginGuardInput, allowed: ReadonlySet<string>): boolean {
  if (SAFE.has(input.method.toUpperCase())) return true;
  const origin = input.origin?.trim().toLowerCase();
  if (origin === 'null') return false;
  if (origin) return allowed.has(origin);
  const site = input.secFetchSite?.trim().toLowerCase();
  if (site === 'same-origin' || site === 'none') return true;
  return !site; // no Origin and no Sec-Fetch-Site: not a browser; same-site, cross-site or unknown: refused
}
