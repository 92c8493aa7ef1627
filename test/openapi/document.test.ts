/**
 * The OpenAPI documents: valid OpenAPI 3.1, route-complete against
 * the app's own registered routes and the adapter's route table, committed
 * and current, and the drift checker really refuses drift.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_SERVER_ROUTES, ROUTES, TOTP_BRIDGE_ROUTES } from '../../common/route-table.js';
import { buildAdapterDocument } from '../../src/openapi/adapter-document.js';
import { buildApiDocument } from '../../src/openapi/document.js';
import { OPENAPI_FILES } from '../../src/openapi/files.js';
import { makeApi } from '../helpers/make-app.js';
import { ROOT } from '../runtime/processes.js';
import { createResponseChecker } from './response-checker.js';

type Doc = Record<string, any>;
let api: Doc;
let adapter: Doc;

beforeAll(() => {
  api = buildApiDocument();
  adapter = buildAdapterDocument();
});

const operations = (doc: Doc) =>
  Object.entries<Doc>(doc.paths)
    .flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();
const templated = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The routes Hono registered on the app itself (middleware entries are `ALL`). */
async function appRoutes(env: Record<string, string> = {}): Promise<string[]> {
  const t = await makeApi({ env });
  const keys = new Set(t.api.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${templated(r.path)}`));
  await t.api.close();
  return [...keys].sort();
}

describe('docs/openapi.json and docs/openapi.adapter.json', () => {
  it('are valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)', async () => {
    for (const doc of [api, adapter]) {
      expect(doc.openapi).toBe('3.1.0');
      const result = await new Validator().validate(doc as never);
      expect(result.errors ?? [], doc.info.title).toEqual([]);
      expect(result.valid).toBe(true);
    }
  });

  it('are committed as generated (npm run openapi)', () => {
    for (const { file, build } of OPENAPI_FILES) {
      const committed = readFileSync(join(ROOT, file), 'utf8');
      expect(committed === `${JSON.stringify(build(), null, 2)}\n`, `${file} is stale: run npm run openapi`).toBe(true);
    }
  });

  it('documents every route of the API app and nothing else', async () => {
    const registered = await appRoutes();
    expect(registered.length).toBeGreaterThan(80);
    expect(operations(api)).toEqual(registered);
  });

  it('lists /openapi.json as a route only while it is enabled', async () => {
    const registered = await appRoutes({ OPENAPI_ENABLED: 'false' });
    expect(operations(api).filter((k) => !registered.includes(k))).toEqual(['GET /openapi.json']);
  });

  it('documents every adapter route of the route table (the TOTP bridge and the OAuth provider too) and nothing else', () => {
    const table = [
      ...ROUTES.map((r) => `${r.method} ${templated(r.path)}`),
      ...TOTP_BRIDGE_ROUTES.map((r) => `${r.method} /totp${r.path}`),
      ...OAUTH_SERVER_ROUTES.map((r) => `${r.method} ${r.path}`),
    ];
    expect(new Set(table).size).toBe(table.length);
    expect(operations(adapter)).toEqual([...table].sort());
  });

  it('describes both adapter transports on every credentialed route', () => {
    expect(Object.keys(adapter.components.securitySchemes).sort()).toEqual([
      'accessCookie',
      'bearer',
      'preAuthCookie',
      'refreshCookie',
      'registrationCookie',
    ]);
    for (const item of Object.values<Doc>(adapter.paths)) {
      for (const o of Object.values<Doc>(item)) {
        // The provider's routes take neither transport (browser navigations, or OAuth clients without cookies).
        if (o.tags[0] === 'oauth2') {
          expect(o.parameters?.some((p: Doc) => p.name === 'x-svc-auth-transport') ?? false).toBe(false);
          continue;
        }
        expect(o.parameters.some((p: Doc) => p.name === 'x-svc-auth-transport' && p.in === 'header')).toBe(true);
        if (o.security.length) expect(o.security.map((s: Doc) => Object.keys(s)[0]).at(-1)).toBe('bearer');
      }
    }
    // A session route answers without tokens in cookie transport and with them in bearer transport.
    const session = adapter.paths['/webAuthn/login/finish'].post.responses['200'].content['application/json'].schema;
    expect(session.anyOf.map((s: Doc) => s.$ref)).toEqual([
      '#/components/schemas/AdapterSessionOrMfaCookieResponse',
      '#/components/schemas/SessionOrMfaResponse',
    ]);
    expect(adapter.components.schemas.AdapterSessionCookieResponse.properties).not.toHaveProperty('refreshToken');
    expect(adapter.paths['/logout'].delete.responses).toHaveProperty('204');
  });

  it("documents the OAuth provider's routes: pages, redirects, forwarded RFC endpoints, CORS preflights", () => {
    const authorize = adapter.paths['/oauth2/authorize'].get;
    expect(Object.keys(authorize.responses).sort()).toEqual(['200', '303', '4XX', '502']);
    expect(authorize.responses['200'].content).toHaveProperty('text/html');
    expect(authorize.parameters.map((p: Doc) => p.name)).toContain('code_challenge');
    const consent = adapter.paths['/oauth2/consent'].post;
    expect(consent.security).toEqual([{ accessCookie: [] }]);
    expect(consent.requestBody.content['application/x-www-form-urlencoded'].schema.required).toEqual([
      'requestId',
      'csrf',
      'decision',
    ]);
    // The RFC passthroughs reuse the API operation: its form body and its RFC error format.
    const token = adapter.paths['/oauth2/token'].post;
    expect(token.requestBody).toEqual(api.paths['/oauth2/token'].post.requestBody);
    expect(token.responses['400']).toEqual(api.paths['/oauth2/token'].post.responses['400']);
    expect(token.responses['502'].content['application/json'].schema.required).toEqual(['error']);
    expect(token.description).toMatch(/Access-Control-Allow-Origin/);
    expect(adapter.paths['/oauth2/introspect'].post.description).not.toMatch(/Access-Control-Allow-Origin/);
    expect(adapter.paths['/oauth2/register'].post.requestBody).toEqual(api.paths['/oauth2/register'].post.requestBody);
    expect(adapter.paths['/.well-known/openid-configuration'].get.responses['200']).toEqual(
      api.paths['/oauth2/metadata'].get.responses['200'],
    );
    expect(adapter.paths['/oauth2/token'].options.responses['204'].headers).toHaveProperty(
      'Access-Control-Allow-Origin',
    );
    expect(adapter.paths['/oauth2/introspect']).not.toHaveProperty('options');
  });

  it('uses the request schemas the routes validate with', () => {
    const login = api.paths['/login'].post.requestBody.content['application/json'].schema;
    expect(login.required).toEqual(['identifier']);
    expect(login.properties.identifier).toMatchObject({ type: 'string', minLength: 1, maxLength: 320 });
    // Admin bodies are strict (contract §0.4): unknown fields are refused, and the document says so.
    expect(api.paths['/admin/users'].post.requestBody.content['application/json'].schema.additionalProperties).toBe(
      false,
    );
    expect(api.paths['/admin/auth-events'].get.parameters.map((p: Doc) => p.name)).toEqual([
      'limit',
      'offset',
      'userId',
      'actorUserId',
      'sessionId',
      'ip',
      'type',
      'from',
      'to',
    ]);
  });
});

describe('the drift checker', () => {
  const checker = () => createResponseChecker(buildApiDocument());
  const me = {
    id: 'u1',
    email: 'a@example.com',
    phone: null,
    roles: [],
    emailVerified: true,
    phoneVerified: false,
    lastLogin: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    activeOrganizationId: null,
  };
  const body = (user: unknown) =>
    JSON.stringify({ user, credentials: [], organizations: [], activeOrganization: null, recoveryCodesRemaining: 0 });
  const observed = (status: number, text: string) => ({
    method: 'GET',
    path: '/users/me',
    status,
    body: text,
    contentType: 'application/json; charset=utf-8',
  });

  it('accepts a documented answer', () => {
    expect(checker().check(observed(200, body(me)))).toBeNull();
    expect(
      checker().check(observed(401, JSON.stringify({ error: 'unauthorized', message: 'Missing bearer token' }))),
    ).toBeNull();
  });

  it('refuses an extra field, a wrong type, a missing field, an undocumented status and a code of another status', () => {
    const c = checker();
    expect(c.check(observed(200, body({ ...me, passwordHash: 'x' })))).toMatch(/additional properties/);
    expect(c.check(observed(200, body({ ...me, roles: 'admin' })))).toMatch(/must be array/);
    const { email: _e, ...noEmail } = me;
    expect(c.check(observed(200, body(noEmail)))).toMatch(/required property 'email'/);
    expect(c.check(observed(404, JSON.stringify({ error: 'not_found' })))).toMatch(/status not documented/);
    expect(c.check(observed(401, JSON.stringify({ error: 'forbidden' })))).toMatch(/allowed values/);
  });
});
