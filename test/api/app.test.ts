import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createApp } from '../../src/app.js';
import { authEvents } from '../../src/db/schema.js';
import { parseBody } from '../../src/http/validate.js';
import { createUser, signIn } from '../helpers/factories.js';
import { makeApi, TEST_ISSUER, type TestApi } from '../helpers/make-app.js';

const KB = 1024;
const eventsOf = (t: TestApi, type: string) => t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, type));

/** Every 4xx/5xx body: `{error: snake_case, message?: string, ...extras}`. */
function expectEnvelope(body: unknown, error: string) {
  expect(body).toBeTypeOf('object');
  const b = body as Record<string, unknown>;
  expect(b['error']).toBe(error);
  expect(b['error']).toMatch(/^[a-z][a-z0-9_]*$/);
  if ('message' in b) expect(b['message']).toBeTypeOf('string');
}

/** The real pipeline plus throwaway routes that fail in the ways real routes can. */
function withProbeRoutes(t: TestApi) {
  const app = createApp(t.api.deps);
  app.post('/test/throw', () => {
    throw new Error('boom: db password hunter2');
  });
  app.post('/test/schema', (c) => {
    const body = parseBody(
      c,
      z.object({ email: z.string().email(), count: z.number().int(), nested: z.object({ flag: z.boolean() }) }),
    );
    return c.json({ ok: true, body });
  });
  return app;
}

describe('error envelope and status codes (contract §0.4, §3.0)', () => {
  it('answers 404 not_found for an unknown route and writes request_suspicious', async () => {
    const t = await makeApi();
    const res = await t.call('GET', '/nope/../admin?x=1');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: 'Not found' });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const [ev] = await eventsOf(t, 'request_suspicious');
    expect(ev?.metadata).toEqual({ reason: 'unknown_route', path: '/admin' });
  });

  it.each([
    ['PUT', '/health/status', 'GET'],
    ['GET', '/refresh', 'POST'],
    ['PUT', '/logout', 'DELETE, GET'],
    ['POST', '/.well-known/jwks.json', 'GET'],
  ])('answers 405 with Allow for %s %s', async (method, path, allow) => {
    const t = await makeApi();
    const res = await t.call(method, path);
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ error: 'method_not_allowed', message: 'Method not allowed' });
    expect(res.headers.get('allow')).toBe(allow);
    expect(await eventsOf(t, 'request_suspicious')).toHaveLength(0);
  });

  it('answers 400 invalid_request for a malformed JSON body', async () => {
    const t = await makeApi();
    const res = await t.call('POST', '/refresh', { rawBody: '{"a":', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: 'Malformed JSON body' });
    expect(JSON.stringify(res.body)).not.toContain('"a"');
  });

  it('answers 413 for a body over 100 KB with a Content-Length header', async () => {
    const t = await makeApi();
    const body = 'x'.repeat(100 * KB + 1);
    const res = await t.api.request('/refresh', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: 'payload_too_large', message: 'Payload too large' });
  });

  it('answers 413 for a streamed body over 100 KB without Content-Length', async () => {
    const t = await makeApi();
    let sent = 0;
    const chunk = new TextEncoder().encode('x'.repeat(16 * KB));
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 200 * KB) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const req = new Request(`${TEST_ISSUER}/refresh`, { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    expect(req.headers.get('content-length')).toBeNull();
    const res = await t.api.request(req);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: 'payload_too_large', message: 'Payload too large' });
  });

  it('accepts a JSON body of exactly 100 KB', async () => {
    const t = await makeApi();
    const json = JSON.stringify({ pad: 'x'.repeat(100 * KB - 10) });
    expect(new TextEncoder().encode(json).byteLength).toBe(100 * KB);
    const res = await t.call('POST', '/refresh', { rawBody: json, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
  });

  it('answers exactly {error:"internal_error", message:"Internal server error"} to an unexpected throw, stack in the log only', async () => {
    const t = await makeApi();
    const res = await withProbeRoutes(t).request('/test/throw', { method: 'POST' });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: 'internal_error', message: 'Internal server error' });
    expect(text).not.toContain('boom');
    expect(text).not.toContain('at ');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const logged = t.logs.find((l) => l.level === 'error' && l.line.includes('unhandled error'));
    expect(logged?.line).toContain('boom');
    expect(logged?.line).toContain('stack');
  });

  it('reports schema failures as details.issues with path, code and message, never the submitted values', async () => {
    const t = await makeApi();
    const res = await withProbeRoutes(t).request('/test/schema', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: 'secret-value-not-an-email',
        count: 'seventeen-secret',
        nested: { flag: 'hunter2' },
      }),
    });
    expect(res.status).toBe(400);
    const text = await res.text();
    const body = JSON.parse(text);
    expect(Object.keys(body).sort()).toEqual(['details', 'error', 'message']);
    expect(body.error).toBe('invalid_request');
    expect(body.message).toBe('Request failed schema validation.');
    const paths = body.details.issues.map((i: { path: unknown }) => i.path);
    expect(paths).toEqual(expect.arrayContaining([['email'], ['count'], ['nested', 'flag']]));
    for (const issue of body.details.issues) {
      expect(Object.keys(issue).sort()).toEqual(['code', 'message', 'path']);
      expect(issue.code).toBeTypeOf('string');
    }
    for (const secret of ['secret-value', 'seventeen', 'hunter2']) expect(text).not.toContain(secret);
  });

  it('treats a missing body as {} for schema validation', async () => {
    const t = await makeApi();
    const res = await withProbeRoutes(t).request('/test/schema', { method: 'POST' });
    expect(res.status).toBe(400);
    expect((await res.json()).details.issues.length).toBe(3);
  });

  it('sends Cache-Control: no-store everywhere except JWKS', async () => {
    const t = await makeApi();
    const user = await createUser(t);
    const session = await signIn(t, user);
    const responses = [
      await t.call('GET', '/health/status'),
      await t.call('GET', '/health/version'),
      await t.call('GET', '/users/me', { token: session.token }),
      await t.call('GET', '/users/me'),
      await t.call('GET', '/missing'),
      await t.call('PUT', '/refresh'),
      await t.call('POST', '/refresh', { token: session.refreshToken }),
    ];
    for (const r of responses) expect(r.headers.get('cache-control')).toBe('no-store');
    const jwks = await t.call('GET', '/.well-known/jwks.json');
    expect(jwks.headers.get('cache-control')).toBe('public, max-age=300');
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'RSA', kid: 'dev-main', use: 'sig', alg: 'RS256' });
  });

  it('answers the health routes', async () => {
    const t = await makeApi();
    expect((await t.call('GET', '/health/status')).body).toEqual({ message: 'System up' });
    expect((await t.call('GET', '/health/version')).body.message).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('every error body of this suite matches the envelope', async () => {
    const t = await makeApi();
    const probe = withProbeRoutes(t);
    const bodies: [unknown, string][] = [
      [(await t.call('GET', '/nope')).body, 'not_found'],
      [(await t.call('PUT', '/health/status')).body, 'method_not_allowed'],
      [(await t.call('POST', '/refresh')).body, 'unauthorized'],
      [(await t.call('POST', '/refresh', { token: 'x'.repeat(43) })).body, 'invalid_refresh_token'],
      [(await t.call('POST', '/refresh', { rawBody: '{' })).body, 'invalid_request'],
      [await (await probe.request('/test/throw', { method: 'POST' })).json(), 'internal_error'],
      [
        (await t.call('GET', '/health/status', { headers: { origin: 'https://evil.test' } })).body,
        'origin_not_allowed',
      ],
    ];
    for (const [body, code] of bodies) expectEnvelope(body, code);
  });
});

describe('CORS (contract §3.0 step 1)', () => {
  it('refuses a disallowed Origin with 403 origin_not_allowed and writes request_suspicious', async () => {
    const t = await makeApi({ env: { APP_ORIGINS: 'https://app.test' } });
    for (const method of ['GET', 'OPTIONS']) {
      const res = await t.call(method, '/health/status', {
        headers: { origin: 'https://evil.test', 'access-control-request-method': 'GET' },
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'origin_not_allowed', message: 'Origin is not allowed' });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
    const events = await eventsOf(t, 'request_suspicious');
    expect(events.map((e) => (e.metadata as { reason: string }).reason)).toEqual(['cors_origin', 'cors_origin']);
  });

  it('answers an allowed preflight with 204 and never allows credentials', async () => {
    const t = await makeApi({ env: { APP_ORIGINS: 'https://app.test, http://localhost:5173' } });
    const res = await t.call('OPTIONS', '/refresh', {
      headers: { origin: 'https://app.test', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.test');
    expect(res.headers.get('access-control-allow-headers')).toContain('Authorization');
    expect(res.headers.get('access-control-allow-headers')).toContain('x-svc-service-token');
    // A direct caller's keyed refresh retry must pass the preflight.
    expect(res.headers.get('access-control-allow-headers')).toContain('Idempotency-Key');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('decorates an allowed simple request, the API’s own origin included', async () => {
    const t = await makeApi({ env: { APP_ORIGINS: 'https://app.test' } });
    for (const origin of ['https://app.test', TEST_ISSUER]) {
      const res = await t.call('GET', '/health/status', { headers: { origin } });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(res.headers.get('access-control-expose-headers')).toContain('RateLimit-Remaining');
      expect(res.headers.get('access-control-expose-headers')).toContain('Retry-After');
    }
  });
});

describe('routing', () => {
  it('matches through the remembered trie (src/http/memo-router.ts), and a static route still beats a parameter', async () => {
    const t = await makeApi();
    const app = createApp(t.api.deps);
    expect(app.router.name).toBe('memo(TrieRouter)');
    const { token } = await signIn(t, await createUser(t));
    for (let i = 0; i < 2; i++) {
      // Registered beside GET /organizations/:organizationId: the static route answers, the first time and when remembered.
      const res = await app.request('/organizations/invitations', { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      expect(await res.json()).toHaveProperty('invitations');
    }
  });
});
