/**
 * `buildApiDocument()`: the OpenAPI 3.1 document of the auth API, generated
 * from the operation tables (the zod schemas the routes validate with and the
 * response schemas of `src/http/responses`). Pure: no env, no I/O.
 *
 * @example
 * import { buildApiDocument } from './openapi/document.js';
 * const doc = buildApiDocument(); // doc.paths['/login'].post …
 */
import {
  buildComponents,
  errorResponses,
  reachableSchemas,
  schemaRef,
  type Components,
  type JsonSchema,
} from './components.js';
import { OAuthErrorBody } from '../http/responses/oauth-server.js';
import { API_VERSION } from '../version.js';
import { OpenApiDocument } from '../http/responses/common.js';
import { accountOperations } from './operations-account.js';
import { contactChangeOperations } from './operations-contact-change.js';
import { adminOperations } from './operations-admin.js';
import { op, type Operation, type RouteCredential } from './operation.js';
import { signInOperations } from './operations-sign-in.js';
import { recoveryCodeOperations } from './operations-recovery-codes.js';
import { webhookOperations } from './operations-webhooks.js';
import { oauthClientOperations } from './operations-oauth-clients.js';
import { oauthServerOperations } from './operations-oauth-server.js';
import { ERRORS } from '../errors.js';

/** `GET /openapi.json` itself (registered only when enabled, see `OPENAPI_ENABLED`). */
export const openApiOperation = op(
  'GET',
  '/openapi.json',
  'This OpenAPI document (off in production unless OPENAPI_ENABLED=true)',
  'none',
  OpenApiDocument,
);

/** Every operation of the auth API, in a stable order. */
export const apiOperations = (): Operation[] => [
  ...signInOperations,
  ...accountOperations,
  ...adminOperations,
  ...recoveryCodeOperations,
  ...contactChangeOperations,
  ...webhookOperations,
  ...oauthClientOperations,
  ...oauthServerOperations,
  openApiOperation,
];

/** Statuses any route can answer (contract §0.2–§0.4): body, CORS, deadline, limiter, header size, server. */
const COMMON_STATUSES = [400, 403, 408, 413, 429, 431, 500, 503];

const SECURITY: Record<RouteCredential, string | null> = {
  none: null,
  access: 'accessToken',
  'ephemeral:login': 'ephemeralToken',
  'ephemeral:registration': 'ephemeralToken',
  'ephemeral:mfa': 'ephemeralToken',
  refresh: 'refreshToken',
};

export const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

export const operationId = (o: Pick<Operation, 'method' | 'path'>) =>
  o.method.toLowerCase() +
  o.path.replace(/[^A-Za-z0-9]+([A-Za-z0-9])?/g, (_m, ch: string | undefined) => (ch ? ch.toUpperCase() : ''));

/** The statuses an operation documents besides its successes. */
export function errorStatusesOf(o: Operation): number[] {
  const set = new Set(COMMON_STATUSES);
  if (o.credential !== 'none') set.add(401);
  for (const code of o.errors ?? []) set.add(ERRORS[code][0]);
  return [...set].sort((a, b) => a - b);
}

function queryParameters(c: Components, o: Operation): JsonSchema[] {
  if (!o.query) return [];
  const schema = c.toSchema(o.query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, s]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    schema: s,
  }));
}

function describe(o: Operation): string | undefined {
  const parts = [o.description];
  if (o.credential.startsWith('ephemeral:'))
    parts.push(`Credential: an ephemeral token of ctx \`${o.credential.slice(10)}\` (contract §1.3).`);
  if (o.role) parts.push(`Needs the role \`${o.role}\` (403 \`forbidden\` otherwise).`);
  if (o.stepUp === 'required') parts.push('Needs a fresh step-up (403 `step_up_required`).');
  if (o.stepUp === 'if-capable')
    parts.push('Needs a fresh step-up once the user has a passkey or TOTP (403 `step_up_required`).');
  const text = parts.filter(Boolean).join('\n\n');
  return text || undefined;
}

/** One OpenAPI operation object; `responses` lets the adapter document swap the success answers. */
export function operationObject(
  c: Components,
  o: Operation,
  tag: string,
  responses?: Record<string, JsonSchema>,
): JsonSchema {
  const params = [...(o.path.match(/:([A-Za-z0-9_]+)/g) ?? [])].map((p) => ({
    name: p.slice(1),
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const ok: Record<string, JsonSchema> = {};
  for (const s of o.ok) {
    ok[String(s.status)] = s.schema
      ? {
          description: s.description ?? 'Success',
          content: { 'application/json': { schema: c.toSchema(s.schema, 'output') } },
        }
      : { description: s.description ?? 'No content' };
  }
  const errors: Record<string, JsonSchema> = Object.fromEntries(
    errorStatusesOf(o).map((st) => [String(st), { $ref: `#/components/responses/Error${st}` }]),
  );
  for (const st of o.rfcErrors ?? []) {
    errors[String(st)] = {
      description: 'The envelope, or an OAuth error (RFC 6749 §5.2, RFC 6750 §3.1)',
      content: {
        'application/json': {
          schema: { anyOf: [{ $ref: schemaRef(`Error${st}`) }, c.toSchema(OAuthErrorBody, 'output')] },
        },
      },
    };
  }
  const scheme = SECURITY[o.credential];
  const out: JsonSchema = {
    operationId: operationId(o),
    summary: o.summary,
    tags: [tag],
    security: scheme ? [{ [scheme]: [] }] : [],
    parameters: [
      ...params,
      ...queryParameters(c, o),
      ...(o.headers ?? []).map((h) => ({ ...h, in: 'header', required: false })),
    ],
    responses: { ...(responses ?? ok), ...errors },
  };
  const description = describe(o);
  if (description) out['description'] = description;
  if (o.body)
    out['requestBody'] = { required: false, content: { 'application/json': { schema: c.toSchema(o.body, 'input') } } };
  if (o.formBody)
    out['requestBody'] = {
      required: true,
      content: { 'application/x-www-form-urlencoded': { schema: c.toSchema(o.formBody, 'input') } },
    };
  if (!(out['parameters'] as unknown[]).length) delete out['parameters'];
  return out;
}

const tagOf = (path: string) => {
  const first = path.split('/')[1] ?? '';
  return first === '.well-known' || first === 'health' ? 'health' : first.replace(/-/g, ' ');
};

export const TOKEN_SCHEMES = {
  accessToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'RS256 access token (`typ: access`) from a session envelope.',
  },
  ephemeralToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'RS256 ephemeral token (`typ: ephemeral`); each route names the `ctx` it needs.',
  },
  refreshToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'Opaque refresh token (43 base64url characters), only on `POST /refresh`.',
  },
};

const API_DESCRIPTION = [
  'The private svc auth API (contract v1). Bearer credentials only; every non-empty body is JSON.',
  'Errors use one envelope `{error, message?, …extras}`; `error` codes are stable (see the `Error<status>` schemas).',
  'An adapter adds `x-svc-service-token` (and `x-svc-client-ip`, `x-svc-client-user-agent`, `x-svc-client-geo`, `x-svc-auth-delivery-mode: external`); those headers unlock client attribution and the `delivery` payloads only.',
].join('\n\n');

/** The OpenAPI 3.1 document of the auth API. */
export function buildApiDocument(): JsonSchema {
  const c = buildComponents();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const o of apiOperations()) {
    const p = (paths[toOpenApiPath(o.path)] ??= {});
    p[o.method.toLowerCase()] = operationObject(c, o, tagOf(o.path));
  }
  return {
    openapi: '3.1.0',
    info: { title: 'svc auth API', version: API_VERSION, description: API_DESCRIPTION },
    paths,
    components: {
      schemas: reachableSchemas(c.schemas, [paths, errorResponses()]),
      responses: errorResponses(),
      securitySchemes: TOKEN_SCHEMES,
    },
  };
}
