/**
 * The OAuth provider's browser- and client-facing routes in the adapter document (`OAUTH_SERVER_ROUTES`,
 * docs/oauth-provider.md). The RFC endpoints, the discovery documents and the JWKS reuse the API operation
 * they forward to; authorize and consent answer in HTML or with a 303; the CORS preflights are `OPTIONS`.
 * None of them takes the bearer transport: a browser navigates to authorize/consent, and the client-facing
 * ones read no cookie.
 */
import { OAUTH_SERVER_ROUTES, type OAuthServerRouteEntry } from '../../common/route-table.js';
import { OAuthErrorBody } from '../http/responses/oauth-server.js';
import type { Components, JsonSchema } from './components.js';
import { operationId, operationObject } from './document.js';
import type { Operation } from './operation.js';

const TAG = 'oauth2';

const CORS_NOTE =
  'CORS: any origin (`Access-Control-Allow-Origin: *`, no credentials, `WWW-Authenticate` exposed), so browser-based public clients can call it; the preflight is the `OPTIONS` of this path.';

const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });

const seeOther = (description: string) => ({
  description,
  headers: { Location: { description: 'Where the browser goes next', schema: { type: 'string' } } },
});

/** The error page: the API's 4xx refusal (its code shown on the page), or 502 when the API is unreachable. */
const PAGE_ERRORS = {
  '4XX': html(
    'The error page (HTML, `Cache-Control: no-store`, no framing): the API refusal or the check that failed, with its code.',
  ),
  '502': html('The error page: the API is unreachable or answered out of contract.'),
};

const AUTHORIZE_QUERY = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'resource',
  'response_mode',
  'prompt',
  'max_age',
].map((name) => ({
  name,
  in: 'query',
  required: false,
  schema: { type: 'string', maxLength: 4096 },
}));

function authorizeOperation(): JsonSchema {
  return {
    summary: 'The authorization request (RFC 6749 §4.1, OAuth 2.1, RFC 7636 S256, RFC 9207 `iss`)',
    description:
      "A browser navigation. The access cookie is read when there is one (refreshed like every cookie route); the query goes to the API's `POST /oauth2/authorize` (a parameter given twice is refused). Its answer becomes a 303 (to the sign-in page with `return_to`, or to the client's redirect URI with `code`, `state`, `iss` or `error`), the consent page (200), or the error page (an unknown client or unregistered redirect URI is shown, never redirected).",
    parameters: AUTHORIZE_QUERY,
    security: [{ accessCookie: [] }, {}],
    responses: {
      '200': html('The consent page (server-rendered, no script; `Cache-Control: no-store`, `X-Frame-Options: DENY`).'),
      '303': seeOther('To the sign-in page, or to the client with the code or the RFC error'),
      ...PAGE_ERRORS,
    },
  };
}

function consentOperation(): JsonSchema {
  return {
    summary: "The consent page's form post",
    description:
      "Same-origin only (origin guard: 403 `cross_site_request_blocked`), the signed-in session of the access cookie (401), and `csrf` as the page wrote it for this session and request (403 `invalid_csrf_token`); a missing field is 400 `invalid_request`. Then the API's `POST /oauth2/consent`: 303 to the client with the code, or `error=access_denied` for `deny`. An expired or already answered request (`oauth_request_expired`) is the error page. Every refusal is the HTML error page, not JSON.",
    security: [{ accessCookie: [] }],
    requestBody: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            required: ['requestId', 'csrf', 'decision'],
            properties: {
              requestId: { type: 'string', minLength: 1, maxLength: 200 },
              csrf: { type: 'string', description: 'The token the consent page carries' },
              decision: { type: 'string', enum: ['allow', 'deny'] },
            },
          },
        },
      },
    },
    responses: {
      '303': seeOther("To the client's redirect URI (`code` or `error=access_denied`, `state`, `iss`)"),
      ...PAGE_ERRORS,
    },
  };
}

function preflightOperation(path: string): JsonSchema {
  const methods = OAUTH_SERVER_ROUTES.filter((r) => r.path === path && r.method !== 'OPTIONS').map((r) => r.method);
  const header = (description: string) => ({ description, schema: { type: 'string' } });
  return {
    summary: `CORS preflight of ${methods.join(', ')} ${path}`,
    description: 'Any origin, never credentials; a well-formed `Access-Control-Request-Headers` list is echoed.',
    security: [],
    responses: {
      '204': {
        description: 'The preflight answer',
        headers: {
          'Access-Control-Allow-Origin': header('`*`'),
          'Access-Control-Allow-Methods': header(`\`${[...methods, 'OPTIONS'].join(', ')}\``),
          'Access-Control-Allow-Headers': header(
            'The asked headers, or `authorization, content-type, accept, mcp-protocol-version`',
          ),
          'Access-Control-Max-Age': header('`600`'),
        },
      },
    },
  };
}

/** The API operation a route forwards to, at the adapter's path, with the adapter's own 502. */
function forwardedOperation(c: Components, e: OAuthServerRouteEntry, api: Operation): JsonSchema {
  const obj = operationObject(c, { ...api, method: e.method as Operation['method'], path: e.path }, TAG);
  const responses = obj['responses'] as Record<string, JsonSchema>;
  // The cached documents forward the API's 4xx only; any other failure is the adapter's 502.
  if (e.kind !== 'forward') for (const st of ['500', '503']) delete responses[st];
  responses['502'] =
    e.kind === 'forward'
      ? {
          description: 'The API is unreachable: `temporarily_unavailable` in the RFC format',
          content: { 'application/json': { schema: c.toSchema(OAuthErrorBody, 'output') } },
        }
      : { $ref: '#/components/responses/Error502' };
  const cached =
    e.kind === 'forward'
      ? "The client's request goes to the API as it is (method, body bytes, `content-type`, `authorization`); its status, body and `cache-control`, `pragma`, `www-authenticate`, `content-type` come back unchanged. No cookie is read or set."
      : 'Cached by the adapter for 300 s (the last good copy while the API is down); a 4xx of the API is forwarded.';
  obj['description'] = [cached, obj['description'], e.cors ? CORS_NOTE : null].filter(Boolean).join('\n\n');
  return obj;
}

/** The operation object of every `OAUTH_SERVER_ROUTES` entry, keyed by OpenAPI path and lower-case method. */
export function oauthServerPaths(
  c: Components,
  apiOps: Map<string, Operation>,
): Record<string, Record<string, JsonSchema>> {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const e of OAUTH_SERVER_ROUTES) {
    let obj: JsonSchema;
    if (e.kind === 'authorize') obj = authorizeOperation();
    else if (e.kind === 'consent') obj = consentOperation();
    else if (e.kind === 'preflight') obj = preflightOperation(e.path);
    else {
      const api = apiOps.get(`${e.upstreamMethod} ${e.raw}`);
      if (!api)
        throw new Error(
          `provider route ${e.method} ${e.path} forwards to ${e.upstreamMethod} ${e.raw}, which the API does not document`,
        );
      obj = forwardedOperation(c, e, api);
    }
    const id = operationId({ method: e.method as Operation['method'], path: e.path });
    (paths[e.path] ??= {})[e.method.toLowerCase()] = {
      tags: [TAG],
      ...obj,
      operationId: `adapter${id.replace(/^./, (ch) => ch.toUpperCase())}`,
    };
  }
  return paths;
}
