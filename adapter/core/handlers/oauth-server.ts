/**
 * The browser side of the provider (docs/oauth-provider.md): `GET /oauth2/authorize` (the access
 * cookie when there is one → the API's action → a redirect, the consent page or the error page) and
 * `POST /oauth2/consent` (the consent form: origin guard, CSRF token, then the API's `location`).
 * Both answer in HTML or with a 303; neither takes the bearer transport (a browser navigates here).
 */
import type { AdapterCore } from '../core.js';
import { ensureCookies } from '../ensure-cookies.js';
import { consentCsrfToken, consentCsrfValid, sessionIdOf } from '../oauth-server-csrf.js';
import { originAllowed } from '../origin-guard.js';
import { mergeCookies } from '../pipeline.js';
import type { HandlerResult, SetCookieCommand } from '../result.js';
import type { OAuthServerRouteEntry } from '../../../common/route-table.js';
import { fromUtf8 } from '../../../common/encoding.js';
import { isObject } from './forward.js';
import { cachedDocument, JWKS_PATH, METADATA_PATH } from './oauth-server-metadata.js';
import { forwardOAuthRequest, preflight, type OAuthServerRequest } from './oauth-server-forward.js';
import { consentPage, errorPage, type ConsentAction } from './oauth-server-pages.js';

export type { OAuthServerRequest } from './oauth-server-forward.js';

type Session =
  | { ok: true; token: string | null; setCookies: SetCookieCommand[]; clearCookies: string[] }
  | { ok: false; result: HandlerResult };

/**
 * The access cookie when the browser has a usable one (refreshed like every cookie route); none when
 * it has no session (stale cookies are cleared), an error page when the refresh itself failed otherwise.
 */
async function optionalSession(core: AdapterCore, req: OAuthServerRequest): Promise<Session> {
  const { names } = core.opts;
  if (req.cookies[names.access] === undefined && req.cookies[names.refresh] === undefined)
    return { ok: true, token: null, setCookies: [], clearCookies: [] };
  const ensured = await ensureCookies(core, 'access', req.cookies, req.client);
  if (ensured.ok) return { ok: true, token: ensured.token, setCookies: ensured.setCookies, clearCookies: [] };
  if (ensured.result.status === 401)
    return { ok: true, token: null, setCookies: [], clearCookies: ensured.result.clearCookies ?? [] };
  return { ok: false, result: errorPage(502, 'upstream_unavailable', 'The sign-in service is unreachable.') };
}

const see = (location: string): HandlerResult => ({ status: 303, headers: { location } });

/** An absolute http(s) URL or a path of this origin (`/…`, not `//…`): the only redirects the adapter issues. */
export function redirectable(location: unknown): location is string {
  if (typeof location !== 'string' || location === '') return false;
  if (location.startsWith('/')) return !location.startsWith('//') && !location.startsWith('/\\');
  try {
    const url = new URL(location);
    // A native app's private-use scheme (RFC 8252 §7.1) is a registered redirect URI too; never script.
    return !['javascript:', 'data:', 'vbscript:', 'file:', 'blob:'].includes(url.protocol);
  } catch {
    return false;
  }
}

/** The API's non-2xx answer or an unreachable API, as the error page. */
function upstreamFailure(res: Awaited<ReturnType<AdapterCore['call']>>): HandlerResult {
  if (!res.ok) return errorPage(502, 'upstream_unavailable', 'The sign-in service is unreachable.');
  const body = isObject(res.body) ? res.body : {};
  const code = typeof body['error'] === 'string' ? body['error'] : 'upstream_error';
  const text = typeof body['message'] === 'string' ? body['message'] : null;
  return errorPage(res.status >= 500 ? 502 : res.status, code, text);
}

const isConsent = (body: Record<string, unknown>): boolean =>
  typeof body['requestId'] === 'string' &&
  isObject(body['client']) &&
  typeof body['client']['id'] === 'string' &&
  Array.isArray(body['scopes']) &&
  body['scopes'].every((s) => isObject(s) && typeof s['name'] === 'string') &&
  isObject(body['user']);

/** `GET /oauth2/authorize`. */
export async function authorize(core: AdapterCore, req: OAuthServerRequest): Promise<HandlerResult> {
  const params: Record<string, string> = {};
  for (const [name, values] of Object.entries(req.query)) {
    // RFC 6749 §3.1: a parameter must not be included more than once. Shown, not redirected:
    // which of two redirect_uri values would be the one to trust?
    if (values.length !== 1)
      return errorPage(400, 'invalid_request', `The parameter "${name}" was given more than once.`);
    params[name] = values[0]!;
  }
  const session = await optionalSession(core, req);
  if (!session.ok) return session.result;
  const res = await core.call({
    method: 'POST',
    path: '/oauth2/authorize',
    authorization: session.token ? `Bearer ${session.token}` : null,
    body: { params },
    client: req.client,
  });
  const cookies = (result: HandlerResult): HandlerResult =>
    mergeCookies(session.setCookies, { ...result, clearCookies: session.clearCookies });
  if (!res.ok || res.status !== 200 || !isObject(res.body)) return cookies(upstreamFailure(res));
  const body = res.body;
  switch (body['action']) {
    case 'redirect':
    case 'login':
      if (!redirectable(body['location'])) return cookies(errorPage(502, 'upstream_error'));
      return cookies(see(body['location']));
    case 'consent': {
      const sid = session.token ? sessionIdOf(session.token) : null;
      if (!sid || !isConsent(body)) return cookies(errorPage(502, 'upstream_error'));
      const action = body as unknown as ConsentAction;
      return cookies(consentPage(action, consentCsrfToken(core.opts.cookieSecret, sid, action.requestId)));
    }
    case 'error': {
      const error = typeof body['error'] === 'string' ? body['error'] : 'invalid_request';
      const description = typeof body['error_description'] === 'string' ? body['error_description'] : null;
      return cookies(errorPage(400, error, description));
    }
    default:
      return cookies(errorPage(502, 'upstream_error'));
  }
}

/** The consent form's fields (`application/x-www-form-urlencoded`, as a browser posts it). */
function formFields(req: OAuthServerRequest): Record<string, string> | null {
  if (!req.body) return null;
  const type = req.contentType?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return null;
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(fromUtf8(req.body))) {
    if (k in out) return null; // one value per field, as the page sends
    out[k] = v;
  }
  return out;
}

/** `POST /oauth2/consent`. */
export async function consent(core: AdapterCore, req: OAuthServerRequest): Promise<HandlerResult> {
  if (!originAllowed({ method: 'POST', origin: req.origin, secFetchSite: req.secFetchSite }, core.opts.allowedOrigins))
    return errorPage(403, 'cross_site_request_blocked', 'The form was not sent from this site.');
  const fields = formFields(req);
  const requestId = fields?.['requestId'];
  const decision = fields?.['decision'];
  const csrf = fields?.['csrf'];
  if (!requestId || !csrf || (decision !== 'allow' && decision !== 'deny'))
    return errorPage(400, 'invalid_request', 'The consent form is incomplete.');
  const ensured = await ensureCookies(core, 'access', req.cookies, req.client);
  if (!ensured.ok) {
    if (ensured.result.status !== 401)
      return errorPage(502, 'upstream_unavailable', 'The sign-in service is unreachable.');
    return {
      ...errorPage(401, 'unauthorized', 'Sign in again, then retry from the app.'),
      clearCookies: ensured.result.clearCookies ?? [],
    };
  }
  const sid = ensured.token ? sessionIdOf(ensured.token) : null;
  if (!sid || !consentCsrfValid(core.opts.cookieSecret, sid, requestId, csrf))
    return mergeCookies(
      ensured.setCookies,
      errorPage(403, 'invalid_csrf_token', 'The consent form is not valid for this session.'),
    );
  const res = await core.call({
    method: 'POST',
    path: '/oauth2/consent',
    authorization: `Bearer ${ensured.token}`,
    body: { requestId, decision },
    client: req.client,
  });
  if (!res.ok || res.status !== 200 || !isObject(res.body))
    return mergeCookies(ensured.setCookies, upstreamFailure(res));
  const location = res.body['location'];
  if (!redirectable(location)) return mergeCookies(ensured.setCookies, errorPage(502, 'upstream_error'));
  return mergeCookies(ensured.setCookies, see(location));
}

/**
 * Runs one request of `OAUTH_SERVER_ROUTES`.
 *
 * @example
 * const plan = await handleOAuthServerRequest(core, OAUTH_SERVER_ROUTES, route, request);
 */
export async function handleOAuthServerRequest(
  core: AdapterCore,
  routes: readonly OAuthServerRouteEntry[],
  route: OAuthServerRouteEntry,
  req: OAuthServerRequest,
): Promise<HandlerResult> {
  switch (route.kind) {
    case 'authorize':
      return authorize(core, req);
    case 'consent':
      return consent(core, req);
    case 'forward':
      return forwardOAuthRequest(core, route, req);
    case 'metadata':
      return cachedDocument(core, METADATA_PATH);
    case 'jwks':
      return cachedDocument(core, JWKS_PATH);
    case 'preflight':
      return preflight(routes, route.path, req);
  }
}
