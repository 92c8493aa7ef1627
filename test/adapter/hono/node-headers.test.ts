/**
 * `requireAuth` on @hono/node-server reads the cookie and authorization
 * headers from Node's own request (`c.env.incoming.headers`) instead of
 * making Hono build a WHATWG `Headers`: over a real socket it
 * must accept and refuse exactly as in-process, including a request that
 * splits its cookies over two `Cookie` lines.
 */
import { connect, type AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCookieCodec } from '../../../adapter/core/cookies.js';
import { requireAuth, svcAdapter, type SvcVariables } from '../../../adapter/hono/index.js';
import { requestHeader } from '../../../common/hono-request.js';
import { APP_ORIGIN, COOKIE_SECRET } from '../helpers.js';

const codec = createCookieCodec(COOKIE_SECRET, APP_ORIGIN);
const access = (sub: string) =>
  codec.sign(
    {
      kind: 'access',
      sub,
      sessionId: 's1',
      token: 'a.b.c',
      roles: ['user'],
      email: 'a@b.co',
      phone: null,
      organizationId: null,
    },
    900,
    Date.now(),
  );

/** GET over a raw socket with the header lines as given (a name may repeat); `Connection: close`. */
function get(
  port: number,
  path: string,
  headers: [string, string][],
  method = 'GET',
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let raw = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (raw += d));
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = '', body = ''] = raw.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body: JSON.parse(body) });
    });
    const body = method === 'POST' ? '{"identifier":"a@b.co"}' : '';
    const lines = [
      `${method} ${path} HTTP/1.1`,
      'host: 127.0.0.1',
      'connection: close',
      ...(body ? ['content-type: application/json', `content-length: ${body.length}`] : []),
      ...headers.map(([k, v]) => `${k}: ${v}`),
    ];
    socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  });
}

describe('requireAuth over @hono/node-server', () => {
  let server: ReturnType<typeof serve>;
  let port = 0;
  const app = new Hono<{ Variables: SvcVariables }>();
  app.get('/app', requireAuth({ cookieSecret: COOKIE_SECRET, issuer: APP_ORIGIN }), (c) =>
    c.json({ sub: c.get('user').sub }),
  );
  // The adapter's own routes read their headers the same way: the origin guard
  // (SameSite=none) must hold over the socket.
  app.route(
    '/auth',
    svcAdapter({
      authServerUrl: 'http://127.0.0.1:9',
      audience: 'http://127.0.0.1:9',
      issuer: APP_ORIGIN,
      cookieSecret: COOKIE_SECRET,
      serviceSecret: 'node-headers-service-secret-0123456789abcdef',
      cookieSameSite: 'none',
      cookieSecure: true,
      log: () => {},
    }),
  );
  app.get('/echo', (c) =>
    c.json({
      cookie: requestHeader(c, 'cookie') ?? null,
      viaHono: c.req.header('x-probe') ?? null,
      probe: requestHeader(c, 'x-probe') ?? null,
    }),
  );

  beforeAll(async () => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((r) => server.once('listening', () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('accepts a valid access cookie, also when another Cookie line comes first', async () => {
    expect(await get(port, '/app', [['cookie', `svc-access=${access('u1')}`]])).toEqual({
      status: 200,
      body: { sub: 'u1' },
    });
    expect(
      await get(port, '/app', [
        ['cookie', 'theme=dark'],
        ['cookie', `svc-access=${access('u2')}`],
      ]),
    ).toEqual({ status: 200, body: { sub: 'u2' } });
  });

  it('refuses a tampered cookie and a request without one, as in-process', async () => {
    const cookie = access('u1');
    // The second-to-last character carries six signature bits (the last may carry padding bits): change it.
    const i = cookie.length - 2;
    const tampered = `${cookie.slice(0, i)}${cookie[i] === 'A' ? 'B' : 'A'}${cookie.slice(i + 1)}`;
    expect(tampered).not.toBe(cookie);
    for (const headers of [[['cookie', `svc-access=${tampered}`]], [] as [string, string][]] as [string, string][][]) {
      const res = await get(port, '/app', headers);
      expect(res.status).toBe(401);
      const inProcess = await app.request('/app', { headers: Object.fromEntries(headers) });
      expect(res.body).toEqual(await inProcess.json());
    }
  });

  it('the adapter refuses a cross-origin POST over the socket, and lets a same-origin one through to the (absent) API', async () => {
    const cross = await get(
      port,
      '/auth/login',
      [
        ['origin', 'https://evil.example'],
        ['sec-fetch-site', 'cross-site'],
      ],
      'POST',
    );
    expect(cross.status).toBe(403);
    const same = await get(
      port,
      '/auth/login',
      [
        ['origin', APP_ORIGIN],
        ['sec-fetch-site', 'same-origin'],
      ],
      'POST',
    );
    expect(same).toMatchObject({ status: 502, body: { error: 'upstream_unavailable' } });
  });

  it("reads Node's parsed headers (cookie lines joined with '; ') and agrees with Hono on single headers", async () => {
    const res = await get(port, '/echo', [
      ['cookie', 'a=1'],
      ['cookie', 'b=2'],
      ['x-probe', 'yes'],
    ]);
    expect(res.body).toEqual({ cookie: 'a=1; b=2', viaHono: 'yes', probe: 'yes' });
  });

  it('ignores an `incoming` in c.env that is not a Node request (a Workers binding of that name)', async () => {
    const app = new Hono<{ Bindings: { incoming: { headers: Record<string, string> } } }>();
    app.get('/h', (c) => c.json({ authorization: requestHeader(c, 'authorization') ?? null }));
    const res = await app.request(
      '/h',
      { headers: { authorization: 'Bearer real' } },
      { incoming: { headers: { authorization: 'Bearer planted' } } },
    );
    expect(await res.json()).toEqual({ authorization: 'Bearer real' });
  });
});
