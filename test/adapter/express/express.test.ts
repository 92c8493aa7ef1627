/**
 * Express-only behaviour of `svc-auth/express`: body parsing inside the router
 * with JSON errors only (never Express's HTML error page), mounting next to
 * application routes and parsers, the client address, the service-token
 * subject, and construction errors. Served over a real port.
 */
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { svcExpressAdapter } from '../../../adapter/express/index.js';
import { createUser } from '../../helpers/factories.js';
import { makeHarness, signedInBrowser, upstreamPaths, type Mount } from '../helpers.js';
import { closeServers, expressMount, listen, makeExpressHarness } from './harness.js';

afterEach(closeServers);

const JSON_TYPE = 'application/json; charset=utf-8';
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));

describe('request bodies inside the router (contract §5.13)', () => {
  it('answers malformed JSON, oversized (declared or chunked) and encoded bodies with the JSON envelope, never HTML, without calling the API', async () => {
    const h = await makeExpressHarness();
    const bad = await h.send('POST', '/auth/login', {
      rawBody: '{"identifier":',
      headers: { 'content-type': 'application/json' },
    });
    expect([bad.status, bad.headers.get('content-type'), bad.body]).toEqual([
      400,
      JSON_TYPE,
      { error: 'invalid_request', message: 'Malformed JSON body' },
    ]);
    const big = await h.send('POST', '/auth/login', {
      rawBody: 'x'.repeat(100 * 1024 + 1),
      headers: { 'content-type': 'application/json' },
    });
    expect([big.status, big.headers.get('content-type'), big.body]).toEqual([
      413,
      JSON_TYPE,
      { error: 'payload_too_large', message: 'Payload too large' },
    ]);
    const chunks = [
      new TextEncoder().encode('{"identifier":"'),
      new Uint8Array(60 * 1024).fill(120),
      new Uint8Array(60 * 1024).fill(120),
    ];
    const stream = new ReadableStream({ pull: (c) => (chunks.length ? c.enqueue(chunks.shift()!) : c.close()) });
    const chunked = await h.driver.request('/auth/login', {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    expect([chunked.status, chunked.headers.get('content-type'), await chunked.json()]).toEqual([
      413,
      JSON_TYPE,
      { error: 'payload_too_large', message: 'Payload too large' },
    ]);
    const gzip = await h.send('POST', '/auth/login', {
      rawBody: '{}',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect([gzip.status, gzip.body.error]).toEqual([400, 'invalid_request']);
    expect(h.upstream).toHaveLength(0);
  });

  it('turns an unexpected failure into a logged 500 envelope without the stack', async () => {
    let explode = false;
    const h = await makeExpressHarness();
    const opts = {
      ...h.opts,
      now: () =>
        explode
          ? (() => {
              throw new Error('clock exploded for a@b.co');
            })()
          : h.t.clock.now(),
    };
    const app = express();
    app.use('/auth', svcExpressAdapter(opts));
    const { base } = await listen(app);
    const { cookies } = await signedInBrowser(h);
    explode = true;
    const res = await fetch(`${base}/auth/users/me`, {
      headers: {
        cookie: Object.entries(cookies)
          .map(([k, v]) => `${k}=${v}`)
          .join('; '),
      },
    });
    expect([res.status, res.headers.get('content-type'), await res.json()]).toEqual([
      500,
      JSON_TYPE,
      { error: 'internal_error', message: 'Internal server error' },
    ]);
    const line = h.logs.find((l) => l.level === 'error')!.line;
    expect(line).toContain('GET /auth/users/me failed: Error: clock exploded for [REDACTED]');
  });

  it('reads bodies only on its own routes: application routes after it keep their body, and an application parser before it is honoured', async () => {
    const mount: Mount = async (opts) => {
      const app = express();
      app.use('/auth/app-parsed', express.json());
      app.use('/auth', svcExpressAdapter(opts));
      app.post('/auth/custom', express.json(), (req, res) => res.json({ echoed: req.body }));
      app.use('/auth/app-parsed', svcExpressAdapter(opts));
      const { server, base } = await listen(app);
      return {
        request: (path, init) => fetch(base + path, init),
        close: async () => void server.closeAllConnections(),
      };
    };
    const h = await makeHarness({}, {}, { mount });
    const user = await createUser(h.t);
    const custom = await h.send('POST', '/auth/custom', { body: { kept: true } });
    expect(custom.body).toEqual({ echoed: { kept: true } });
    const login = await h.send('POST', '/auth/app-parsed/login', { body: { identifier: user.email } });
    expect(login.status).toBe(200);
    expect(login.body.loginMethods).toContain('email_otp');
    expect(upstreamPaths(h)).toEqual(['POST /login']);
  });
});

describe('mounting and upstream calls', () => {
  it('sends the socket address as the client IP by default, never X-Forwarded-For, even with trust proxy', async () => {
    const mount: Mount = async (opts) => {
      const app = express();
      app.set('trust proxy', true);
      app.use('/auth', svcExpressAdapter({ ...opts, resolveClientIp: undefined }));
      const { server, base } = await listen(app);
      return {
        request: (path, init) => fetch(base + path, init),
        close: async () => void server.closeAllConnections(),
      };
    };
    const h = await makeHarness({}, {}, { mount });
    await h.send('POST', '/auth/login', {
      body: { identifier: 'who@example.com' },
      headers: { 'x-forwarded-for': '203.0.113.99' },
    });
    const call = h.upstream.find((c) => c.path === '/login')!;
    expect(call.headers.get('x-svc-client-ip')).toBe('127.0.0.1');
    expect(call.headers.get('x-svc-client-user-agent')).toBe('adapter-test');
  });

  it('signs proxy service tokens with the subject svc-express-adapter and keeps Set-Cookie values set before it', async () => {
    const mount: Mount = async (opts, guard) => {
      const inner = await expressMount(opts, guard);
      const app = express();
      app.use((_req, res, next) => (res.append('set-cookie', 'app-pref=1; Path=/'), next()));
      app.use('/auth', svcExpressAdapter(opts));
      const { server, base } = await listen(app);
      return {
        request: (path, init) => fetch(base + path, init),
        close: async () => (server.closeAllConnections(), inner.close()),
      };
    };
    const h = await makeHarness({}, {}, { mount });
    const { cookies } = await signedInBrowser(h);
    const out = await h.send('DELETE', '/auth/logout', { cookies });
    expect(out.status).toBe(204);
    expect(out.setCookies.map((s) => s.split(';')[0])).toEqual([
      'app-pref=1',
      'svc-access=',
      'svc-refresh=',
      'svc-ephemeral=',
    ]);
    const token = h.upstream.find((c) => c.path === '/logout')!.headers.get('x-svc-service-token')!;
    expect(claimsOf(token.replace(/^Bearer /, ''))).toMatchObject({
      iss: 'svc-adapter',
      aud: 'svc-auth-api',
      sub: 'svc-express-adapter',
    });
  });

  it('throws at construction with messages naming the function and the option', () => {
    const base = {
      authServerUrl: 'http://127.0.0.1:1',
      audience: 'http://127.0.0.1:1',
      issuer: 'http://localhost:3000',
      cookieSecret: 'c'.repeat(32),
      serviceSecret: 's'.repeat(32),
    };
    expect(() => svcExpressAdapter({ ...base, cookieSecret: '' })).toThrow('svcExpressAdapter: missing cookieSecret');
    expect(() => svcExpressAdapter({ ...base, serviceSecret: 'short' })).toThrow(
      'svcExpressAdapter: serviceSecret must be at least 32 characters',
    );
    expect(() => svcExpressAdapter({ ...base, authServerUrl: 'ftp://x' })).toThrow(
      'svcExpressAdapter: authServerUrl must be an absolute http(s) URL',
    );
    expect(() => svcExpressAdapter({ ...base, cookieSameSite: 'none', cookieSecure: false })).toThrow(
      /svcExpressAdapter: cookieSameSite "none" requires cookieSecure/,
    );
  });
});
