/**
 * The framework-neutral request pipeline of a mounted route: transport
 * selection, origin guard, ensureCookies, the route handler, and the merge of
 * their cookie commands. An adapter only parses the request into
 * `AdapterRequest` and applies the returned `HandlerResult`.
 */
import type { AdapterCore } from './core.js';
import { ensureCookies } from './ensure-cookies.js';
import { runRoute } from './handlers/index.js';
import { originAllowed } from './origin-guard.js';
import { allCookieNames } from './refresh-call.js';
import { failure, type HandlerResult, type SetCookieCommand } from './result.js';
import type { RouteEntry } from '../../common/route-table.js';
import type { Transport } from './session-result.js';
import type { ClientInfo } from './upstream.js';

export interface AdapterRequest {
  method: string;
  /** Value of `x-svc-auth-transport` (first value). */
  transportHeader: string | undefined;
  authorization: string | undefined;
  origin: string | undefined;
  secFetchSite: string | undefined;
  /** Parsed `Cookie` header. */
  cookies: Record<string, string>;
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** Parsed JSON body (`undefined` when empty). */
  body: unknown;
  client: ClientInfo;
  /** Value of `Idempotency-Key`: forwarded (when well-formed) only by `POST /auth/refresh`. */
  idempotencyKey?: string | undefined;
}

/** `bearer` only when the header's first value, trimmed, equals `bearer` case-insensitively (contract §0.2). */
export function selectTransport(header: string | undefined | null): Transport {
  const first = header?.split(',')[0]?.trim().toLowerCase();
  return first === 'bearer' ? 'bearer' : 'cookie';
}

/**
 * Origin guard for cookie transport (contract §5.11); null when the request may
 * proceed. It runs in every SameSite mode: `Lax` and
 * `Strict` cookies are sent with a POST from a sibling subdomain (same site),
 * so with the guard off there `evil.example.com` could act for a user of
 * `app.example.com`. A compatibility GET form is guarded as its
 * POST form: `Lax` cookies ride along on a cross-site top-level GET, so without
 * this a link on another site could complete the victim's magic-link sign-in
 * or start a passkey ceremony in their session.
 */
export function guardOrigin(
  core: AdapterCore,
  req: Pick<AdapterRequest, 'method' | 'origin' | 'secFetchSite'>,
  transport: Transport,
  route?: Pick<RouteEntry, 'compat'>,
): HandlerResult | null {
  if (transport === 'bearer') return null;
  const method = route?.compat ? route.compat.upstreamMethod : req.method;
  return originAllowed({ ...req, method }, core.opts.allowedOrigins)
    ? null
    : failure(403, 'cross_site_request_blocked', null);
}

/**
 * The API's `WWW-Authenticate` challenge is for bearer clients (RFC 9470): a
 * browser on cookies gets the body only, and a `Bearer` challenge there would
 * invite it to send a token it does not have.
 */
export function forTransport(result: HandlerResult, transport: Transport): HandlerResult {
  if (transport === 'bearer' || !result.headers?.['www-authenticate']) return result;
  const { 'www-authenticate': _dropped, ...headers } = result.headers;
  return { ...result, headers };
}

/**
 * Merges cookie commands: the handler's commands win over ensureCookies'
 * (a logout after a transparent refresh clears, it does not set), a name that
 * is set is not also cleared, and clears are deduplicated.
 */
export function mergeCookies(first: SetCookieCommand[], result: HandlerResult): HandlerResult {
  const later = new Set([...(result.setCookies ?? []).map((s) => s.name), ...(result.clearCookies ?? [])]);
  const sets = [...first.filter((s) => !later.has(s.name)), ...(result.setCookies ?? [])];
  const setNames = new Set(sets.map((s) => s.name));
  const clears = [...new Set(result.clearCookies ?? [])].filter((n) => !setNames.has(n));
  const out: HandlerResult = { ...result };
  if (sets.length) out.setCookies = sets;
  else delete out.setCookies;
  if (clears.length) out.clearCookies = clears;
  else delete out.clearCookies;
  return out;
}

/**
 * Runs one request of a route of `ROUTES` and returns the response plan.
 *
 * @example
 * const result = await handleAdapterRequest(core, route, request);
 * // then: write clears, sets, headers and the body (see adapter/hono/respond.ts)
 */
export async function handleAdapterRequest(
  core: AdapterCore,
  route: RouteEntry,
  req: AdapterRequest,
): Promise<HandlerResult> {
  const transport = selectTransport(req.transportHeader);
  const blocked = guardOrigin(core, req, transport, route);
  if (blocked) return blocked;

  if (transport === 'bearer') {
    if (route.cred !== 'none' && !req.authorization)
      return failure(401, 'unauthorized', route.cred === 'refresh' ? 'Refresh token required' : 'Missing bearer token');
    // Bearer clients get the API's RFC 9470 challenge as it is: no forTransport here.
    return mergeCookies(
      [],
      await runRoute(core, route, {
        transport,
        token: null,
        authorization: req.authorization ?? null,
        credentialSub: null,
        params: req.params,
        query: req.query,
        body: req.body,
        client: req.client,
        idempotencyKey: req.idempotencyKey,
      }),
    );
  }

  const ensured = await ensureCookies(core, route.cred, req.cookies, req.client);
  if (!ensured.ok) {
    // Logout is idempotent for the browser: without a usable session there is
    // nothing to revoke (§5.3: 401 → 204, cookies cleared).
    if (route.response === 'logout' && ensured.result.status === 401)
      return mergeCookies([], { status: 204, clearCookies: allCookieNames(core) });
    return mergeCookies([], ensured.result);
  }
  const result = await runRoute(core, route, {
    transport,
    token: ensured.token,
    authorization: null,
    credentialSub: ensured.sub,
    params: req.params,
    query: req.query,
    body: req.body,
    client: req.client,
    cookies: req.cookies,
    idempotencyKey: req.idempotencyKey,
  });
  return forTransport(mergeCookies(ensured.setCookies, result), transport);
}
