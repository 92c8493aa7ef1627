/**
 * `buildAdapterDocument()`: OpenAPI 3.1 for the browser-facing routes of the
 * adapter (the route table of `common/route-table.ts`, mounted at
 * `/auth`, plus `svcTotpBridge` at `/auth/totp`, plus the OAuth provider's
 * `OAUTH_SERVER_ROUTES`: adapter-oauth-server.ts). Each route reuses the API
 * operation it forwards to (same body, query and error codes); the success
 * body depends on the transport: cookie (the default) or bearer
 * (`x-svc-auth-transport: bearer`). Tooling only: the API never imports it.
 *
 * @example
 * const doc = buildAdapterDocument(); // doc.paths['/login'].post …
 */
import type * as z from 'zod/mini';
import type { AdapterErrorCode } from '../../common/contract.js';
import { ROUTES, TOTP_BRIDGE_ROUTES, type CredentialKind, type ResponseKind } from '../../common/route-table.js';
import * as A from '../http/responses/adapter.js';
import { OAuthStartResponse, OrganizationSwitchResponse } from '../http/responses/account.js';
import { InvitationResponse } from '../http/responses/invitations.js';
import { LoginStartResponse, SessionEnvelope, SessionOrMfaResponse } from '../http/responses/session.js';
import { API_VERSION } from '../version.js';
import { buildComponents, errorResponses, reachableSchemas, type Components, type JsonSchema } from './components.js';
import { oauthServerPaths } from './adapter-oauth-server.js';
import { apiOperations, operationObject, TOKEN_SCHEMES, toOpenApiPath } from './document.js';
import type { Operation } from './operation.js';

/** Cookie/bearer pairs for the response kinds that differ by transport. */
const TRANSPORT_VARIANTS: Partial<Record<ResponseKind, [z.ZodMiniType, z.ZodMiniType]>> = {
  login: [A.AdapterLoginCookieResponse, LoginStartResponse],
  register: [A.AdapterRegistrationCookieResponse, A.AdapterRegistrationBearerResponse],
  'ephemeral-renew': [A.AdapterOtpGenerateCookieResponse, A.AdapterOtpGenerateBearerResponse],
  session: [A.AdapterSessionOrMfaCookieResponse, SessionOrMfaResponse],
  'magic-check': [A.AdapterSessionOrMfaCookieResponse, SessionOrMfaResponse],
  'oauth-start': [A.AdapterOAuthStartCookieResponse, OAuthStartResponse],
  'oauth-callback': [A.AdapterSessionOrMfaCookieResponse, SessionOrMfaResponse],
  refresh: [A.AdapterRefreshCookieResponse, SessionEnvelope],
  'org-switch': [A.AdapterOrganizationSwitchCookieResponse, OrganizationSwitchResponse],
};

/** The OAuth flow binding: where it travels in each transport. */
const OAUTH_BINDING_NOTES: Partial<Record<ResponseKind, string>> = {
  'oauth-start':
    'Cookie transport: the flow binding is set as the signed httpOnly cookie `svc-oauth-binding` (10 minutes) and removed from the body. Bearer transport: `binding` is in the body; keep it with the pending flow and send it to the callback.',
  'oauth-callback':
    'Cookie transport: the binding comes from the `svc-oauth-binding` cookie of this provider (a `binding` in the body is ignored); without a valid one the answer is 400 `oauth_invalid_state` and the API is not called; the cookie is cleared once the API answered (not on 5xx or unreachable). Bearer transport: send the `binding` start returned.',
};

const COOKIE_SCHEME: Record<Exclude<CredentialKind, 'none'>, string> = {
  pre: 'preAuthCookie',
  reg: 'registrationCookie',
  access: 'accessCookie',
  refresh: 'refreshCookie',
};

const TRANSPORT_HEADER = {
  name: 'x-svc-auth-transport',
  in: 'header',
  required: false,
  description:
    '`bearer` selects bearer transport (tokens in bodies, credentials in `Authorization`); absent or anything else means cookie transport.',
  schema: { type: 'string', enum: ['bearer'] },
};

function successResponses(
  c: Components,
  api: Operation,
  kind: ResponseKind,
  tokenFree: boolean,
): Record<string, JsonSchema> {
  const pair = TRANSPORT_VARIANTS[kind];
  const json = (schema: JsonSchema, description: string) => ({
    description,
    content: { 'application/json': { schema } },
  });
  if (kind === 'logout')
    return { '204': { description: 'Signed out (cookie transport: every svc cookie is cleared)' } };
  const out: Record<string, JsonSchema> = {};
  for (const s of api.ok) {
    if (!s.schema) out[String(s.status)] = { description: s.description ?? 'No content' };
    else if (pair && !tokenFree) {
      const [cookie, bearer] = pair.map((p) => c.toSchema(p, 'output'));
      out[String(s.status)] = json(
        { anyOf: [cookie, bearer] },
        'Cookie transport: the first schema (tokens are set as cookies, never in the body). Bearer transport: the second (tokens in the body).',
      );
    } else {
      // `delivery` is removed from every adapter answer (§5.10): the two API
      // answers that document one get their adapter schema.
      const schema =
        kind === 'sessions'
          ? A.AdapterSessionListResponse
          : api.path === '/magic-link'
            ? A.AdapterMagicLinkRequestResponse
            : api.path === '/organizations/:organizationId/invitations' && api.method === 'POST'
              ? InvitationResponse
              : s.schema;
      out[String(s.status)] = json(
        c.toSchema(schema, 'output'),
        s.description ?? 'Success (the API answer, forwarded)',
      );
    }
  }
  return out;
}

/** The adapter's own failure codes beyond the API's table (contract §5.11, §5.13). */
export const ADAPTER_CODES = {
  403: ['cross_site_request_blocked'],
  502: ['upstream_unavailable', 'upstream_error', 'invalid_upstream_response'],
} as const satisfies Record<number, readonly AdapterErrorCode[]>;

const ADAPTER_ERRORS = { '502': { $ref: '#/components/responses/Error502' } };

const DESCRIPTION = [
  'The browser-facing routes of the svc adapter (`app.route("/auth", svcAdapter(opts))`, contract §5); paths are relative to the mount, and the TOTP routes assume `svcTotpBridge` at `/auth/totp`.',
  'Two transports: **cookie** (default; the adapter keeps every token in signed httpOnly cookies, refreshes the access cookie itself, and applies the origin guard: 403 `cross_site_request_blocked`) and **bearer** (`x-svc-auth-transport: bearer`; for native apps: tokens travel in bodies and `Authorization`).',
  "Failures are the API envelope forwarded unchanged, or the adapter's own codes in the same envelope.",
  "The OAuth provider's routes (tag `oauth2`, docs/oauth-provider.md; the mount is the issuer) take neither transport: `GET /oauth2/authorize` and `POST /oauth2/consent` are browser navigations answered with HTML or a 303, and the client-facing endpoints (token, userinfo, revoke, introspect, register, the discovery documents, the JWKS) forward the client's request without cookies and answer in the RFC error format.",
].join('\n\n');

interface Entry {
  method: string;
  path: string;
  raw: string;
  upstreamMethod: string;
  cred: CredentialKind;
  response: ResponseKind;
  compat: boolean;
}

/** Every browser-facing route: the main table and the TOTP bridge. */
export const adapterEntries = (): Entry[] => [
  ...ROUTES.map((r) => ({
    method: r.method,
    path: r.path,
    raw: r.raw,
    upstreamMethod: r.compat?.upstreamMethod ?? r.method,
    cred: r.cred,
    response: r.response,
    compat: !!r.compat,
  })),
  ...TOTP_BRIDGE_ROUTES.map((r) => ({
    method: r.method,
    path: `/totp${r.path}`,
    raw: r.raw,
    upstreamMethod: r.method,
    cred: r.cred,
    response: r.response,
    compat: false,
  })),
];

export function buildAdapterDocument(): JsonSchema {
  const c = buildComponents(ADAPTER_CODES);
  const apiOps = new Map(apiOperations().map((o) => [`${o.method} ${o.path}`, o]));
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const e of adapterEntries()) {
    const api = apiOps.get(`${e.upstreamMethod} ${e.raw}`);
    if (!api)
      throw new Error(
        `adapter route ${e.method} ${e.path} forwards to ${e.upstreamMethod} ${e.raw}, which the API does not document`,
      );
    const tokenFree = e.response === 'passthrough' || e.response === 'me' || e.response === 'delete-user';
    const obj = operationObject(
      c,
      { ...api, method: e.method as Operation['method'], path: e.path },
      (e.path.split('/')[1] ?? '').replace(/-/g, ' '),
      successResponses(c, api, e.response, tokenFree),
    );
    obj['operationId'] =
      `adapter${e.compat ? 'Get' : ''}${String(obj['operationId']).replace(/^./, (ch) => ch.toUpperCase())}`;
    obj['security'] = e.cred === 'none' ? [] : [{ [COOKIE_SCHEME[e.cred]]: [] }, { bearer: [] }];
    if (e.response in OAUTH_BINDING_NOTES) obj['description'] = OAUTH_BINDING_NOTES[e.response];
    obj['parameters'] = [...((obj['parameters'] as JsonSchema[] | undefined) ?? []), TRANSPORT_HEADER];
    obj['responses'] = { ...(obj['responses'] as JsonSchema), ...ADAPTER_ERRORS };
    if (e.compat)
      obj['description'] =
        `Compatibility GET form of \`POST ${e.path}\` (same handling; the origin guard applies in every SameSite mode).`;
    if (e.method === 'GET' && api.body) delete obj['requestBody'];
    (paths[toOpenApiPath(e.path)] ??= {})[e.method.toLowerCase()] = obj;
  }
  for (const [path, item] of Object.entries(oauthServerPaths(c, apiOps))) Object.assign((paths[path] ??= {}), item);
  const cookie = (name: string, what: string) => ({
    type: 'apiKey',
    in: 'cookie',
    name,
    description: `Cookie transport: the signed ${what} cookie (name configurable).`,
  });
  return {
    openapi: '3.1.0',
    info: { title: 'svc adapter (browser-facing routes)', version: API_VERSION, description: DESCRIPTION },
    servers: [{ url: '/auth', description: 'The adapter mount point' }],
    paths,
    components: {
      schemas: reachableSchemas(c.schemas, [paths, errorResponses(ADAPTER_CODES)]),
      responses: errorResponses(ADAPTER_CODES),
      securitySchemes: {
        accessCookie: cookie('svc-access', 'access'),
        refreshCookie: cookie('svc-refresh', 'refresh'),
        preAuthCookie: cookie('svc-ephemeral', 'pre-auth (ephemeral)'),
        registrationCookie: cookie('svc-ephemeral', 'registration (ephemeral)'),
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: `Bearer transport (\`x-svc-auth-transport: bearer\`): the API token the route needs — ${Object.keys(TOKEN_SCHEMES).join(', ')}.`,
        },
      },
    },
  };
}
