/**
 * The client's coarse place, as the adapter forwards it to the API in
 * `x-svc-client-geo` (trusted there only with the service token). Sources, in
 * order: the request headers the operator named in `clientPlaceHeader` (their
 * edge sets them: `x-vercel-ip-city` + `x-vercel-ip-country`, or `cf-ipcountry`
 * behind Cloudflare's proxy), else Cloudflare's `request.cf` when the adapter
 * itself runs on Workers (Hono). The API never sees the user's own `cf`: on
 * Workers it gets the adapter's subrequest, so the adapter must forward it.
 */

/** `%`-decoded when it decodes (Vercel URL-encodes the city), else as sent. */
function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The configured headers' values joined in order (`Paris, FR`); undefined when none is set. */
export function placeFromHeaders(
  names: readonly string[],
  header: (name: string) => string | undefined,
): string | undefined {
  const parts = names.map((n) => decoded(header(n)?.trim() ?? '')).filter((v) => v.length > 0);
  return parts.length ? parts.join(', ') : undefined;
}

/** A place is forwarded, stored and shown: a credential header must never be one. */
const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie']);

/** `clientPlaceHeader` as lower-case header names; a name with other characters is refused at startup. */
export function resolvePlaceHeaders(option: string | readonly string[] | undefined): string[] {
  const names = (typeof option === 'string' ? [option] : (option ?? [])).map((n) => n.trim().toLowerCase());
  for (const n of names)
    if (!/^[a-z0-9-]{1,64}$/.test(n) || n.startsWith('x-svc-') || CREDENTIAL_HEADERS.has(n))
      throw new Error(
        `svc adapter: clientPlaceHeader: ${JSON.stringify(n)} is not a header name (or is an x-svc-* or credential header)`,
      );
  return names;
}
