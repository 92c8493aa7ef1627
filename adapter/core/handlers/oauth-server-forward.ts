/**
 * The provider endpoints OAuth clients call directly (token, userinfo, revoke, introspect, register):
 * the client's request goes to the API as it is (method, `content-type`, body bytes, `authorization`,
 * `accept`) with the service token and the client-context headers, and the API's status, body and
 * `cache-control`, `pragma`, `www-authenticate`, `content-type` come back unchanged. No cookie is
 * read or set: these are not browser-session routes. Plus the CORS answers for public clients.
 */
import type { AdapterCore } from '../core.js';
import type { OAuthServerRouteEntry } from '../../../common/route-table.js';
import type { HandlerResult } from '../result.js';
import { UPSTREAM_TIMEOUT_MS, upstreamHeaders, type ClientInfo } from '../upstream.js';

export interface OAuthServerRequest {
  method: string;
  origin: string | undefined;
  secFetchSite: string | undefined;
  cookies: Record<string, string>;
  /** The query, every value of every name (a repeated name is an error for authorize). */
  query: Record<string, string[]>;
  /** The body bytes as received (null when none). */
  body: Uint8Array | null;
  contentType: string | undefined;
  authorization: string | undefined;
  accept: string | undefined;
  /** `Access-Control-Request-Headers` of a preflight. */
  requestHeaders: string | undefined;
  client: ClientInfo;
}

const RELAYED = ['cache-control', 'pragma', 'www-authenticate', 'content-type'] as const;

/** CORS for public clients: any origin, never credentials (these routes read no cookie). */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'www-authenticate',
};

/** RFC 6749 §5.2-shaped failure of the adapter itself (API unreachable). */
const oauthFailure = (status: number, error: string, description: string, cors: boolean): HandlerResult => ({
  status,
  rawBody: JSON.stringify({ error, error_description: description }),
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...(cors ? CORS_HEADERS : {}) },
});

/** Sends the client's request upstream as it is. */
export async function forwardOAuthRequest(
  core: AdapterCore,
  route: OAuthServerRouteEntry,
  req: OAuthServerRequest,
): Promise<HandlerResult> {
  const headers = upstreamHeaders({
    serviceToken: core.tokens.proxy(core.now()),
    authorization: req.authorization ?? null,
    client: req.client,
  });
  if (req.contentType) headers['content-type'] = req.contentType;
  if (req.accept) headers['accept'] = req.accept;
  const sendsBody = req.method !== 'GET' && req.method !== 'HEAD' && req.body !== null;
  // GET userinfo carries no body; any query (none is defined) is dropped rather than trusted.
  const url = `${core.opts.authServerUrl}${route.raw}`;
  let res: Response;
  let text: string;
  try {
    res = await core.opts.fetch(url, {
      method: route.upstreamMethod,
      headers,
      body: sendsBody ? (req.body as BodyInit) : undefined,
      signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
      redirect: 'manual',
    });
    text = await res.text();
  } catch {
    return oauthFailure(502, 'temporarily_unavailable', 'The authorization server is unreachable', route.cors);
  }
  const out: Record<string, string> = route.cors ? { ...CORS_HEADERS } : {};
  for (const name of RELAYED) {
    const value = res.headers.get(name);
    if (value !== null) out[name] = value;
  }
  // toWire adds `cache-control: no-store` when the API sent none: right for tokens, harmless elsewhere.
  return { status: res.status, rawBody: text, headers: out };
}

const HEADER_LIST = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/;
const DEFAULT_ALLOWED_HEADERS = 'authorization, content-type, accept, mcp-protocol-version';

/**
 * The CORS preflight: every origin, the path's methods, the asked headers (a well-formed list is
 * echoed: with no credentials there is nothing a header could unlock), cached 10 minutes.
 */
export function preflight(
  routes: readonly OAuthServerRouteEntry[],
  path: string,
  req: OAuthServerRequest,
): HandlerResult {
  const methods = routes.filter((r) => r.path === path && r.method !== 'OPTIONS').map((r) => r.method);
  const asked = req.requestHeaders?.trim();
  return {
    status: 204,
    headers: {
      ...CORS_HEADERS,
      'access-control-allow-methods': [...methods, 'OPTIONS'].join(', '),
      'access-control-allow-headers': asked && HEADER_LIST.test(asked) ? asked : DEFAULT_ALLOWED_HEADERS,
      'access-control-max-age': '600',
      'cache-control': 'no-store',
    },
  };
}
