/**
 * Origin guard (contract §5.11), active only when the effective SameSite is
 * `none` (cross-site requests then carry the cookies). It never gates GET,
 * HEAD, OPTIONS or bearer transport, and it runs before ensureCookies so a
 * blocked request never refreshes.
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
  if (origin && allowed.has(origin)) return true;
  const site = input.secFetchSite?.trim().toLowerCase();
  if (site === 'same-origin' || site === 'same-site' || site === 'none') return true;
  if (site === 'cross-site') return false;
  if (!site && !origin) return true; // not a browser
  return false;
}
