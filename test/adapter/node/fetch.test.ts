import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { serve } from '@hono/node-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FETCH_DEADLINE_MS } from '../../../adapter/core/fetch-deadline.js';
import { nodeUpstreamFetch } from '../../../adapter/node/index.js';
import { TEST_ISSUER } from '../../helpers/make-app.js';
import { makeHarness, signedInBrowser } from '../helpers.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  socket: Socket;
}

let server: Server;
let base = '';
const seen: Seen[] = [];
let handler: (req: IncomingMessage, res: ServerResponse, body: string) => void = (_req, res) => res.end();

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body, socket: req.socket });
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
afterEach(() => {
  seen.length = 0;
  server.closeAllConnections();
});

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('nodeUpstreamFetch', () => {
  it('round-trips method, headers and body, and returns a real Response with status, headers (several Set-Cookie) and body', async () => {
    handler = (_req, res, body) => {
      res.writeHead(201, 'Made', [
        ['content-type', 'application/json'],
        ['set-cookie', 'a=1; Path=/; HttpOnly'],
        ['set-cookie', 'b=2; Path=/; Max-Age=0'],
        ['retry-after', '7'],
        ['x-echo', body],
      ]);
      res.end(JSON.stringify({ got: JSON.parse(body), é: 'ü' }));
    };
    const f = nodeUpstreamFetch();
    try {
      const res = await f(`${base}/users/me?x=1&y=%20`, {
        method: 'post',
        headers: { 'content-type': 'application/json', authorization: 'Bearer t', 'X-Svc-Service-Token': 's' },
        body: JSON.stringify({ n: 'é' }),
        redirect: 'manual',
      });
      expect(res).toBeInstanceOf(Response);
      expect(res.status).toBe(201);
      expect(res.ok).toBe(true);
      expect(res.statusText).toBe('Made');
      expect(res.url).toBe(`${base}/users/me?x=1&y=%20`);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/; HttpOnly', 'b=2; Path=/; Max-Age=0']);
      expect(res.headers.get('retry-after')).toBe('7');
      expect(await res.json()).toEqual({ got: { n: 'é' }, é: 'ü' });
      const req = seen[0]!;
      expect(req.method).toBe('POST');
      expect(req.url).toBe('/users/me?x=1&y=%20');
      expect(req.headers['authorization']).toBe('Bearer t');
      expect(req.headers['x-svc-service-token']).toBe('s');
      expect(req.headers['content-length']).toBe(String(Buffer.byteLength('{"n":"é"}')));
      expect(req.body).toBe('{"n":"é"}');
    } finally {
      f.close();
    }
  });

  it('reads the body once through any body method, like fetch: text, json, arrayBuffer, bytes, blob, body stream, clone', async () => {
    const payload = '\ufeff{"a":"é","n":1}';
    handler = (_req, res) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(payload);
    const f = nodeUpstreamFetch();
    try {
      const expected = new Response(payload); // what the platform's Response gives for the same bytes
      const a = await f(`${base}/t`);
      expect(a.bodyUsed).toBe(false);
      const copy = a.clone();
      expect(copy).toBeInstanceOf(Response);
      expect(await a.text()).toBe(await expected.clone().text()); // BOM stripped
      expect(a.bodyUsed).toBe(true);
      await expect(a.text()).rejects.toThrow(TypeError);
      await expect(a.json()).rejects.toThrow(TypeError);
      expect(() => a.clone()).toThrow(TypeError);
      expect(await copy.json()).toEqual({ a: 'é', n: 1 });
      const b = await f(`${base}/t`);
      expect(new Uint8Array(await b.arrayBuffer())).toEqual(new Uint8Array(await expected.clone().arrayBuffer()));
      const c = await f(`${base}/t`);
      expect(await c.bytes()).toEqual(new Uint8Array(Buffer.from(payload)));
      const d = await f(`${base}/t`);
      const blob = await d.blob();
      expect(blob.type).toBe('application/json; charset=utf-8');
      expect(await blob.text()).toBe(
        await expected
          .clone()
          .blob()
          .then((x) => x.text()),
      );
      const e = await f(`${base}/t`);
      const reader = e.body!.getReader();
      expect(e.bodyUsed).toBe(true);
      const chunks: Uint8Array[] = [];
      for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
      expect(Buffer.concat(chunks).toString('utf8')).toBe(payload);
      await expect(e.text()).rejects.toThrow(TypeError);
      const g = await f(`${base}/t`);
      // its stream feeds another Response
      expect(await new Response(g.body).text()).toBe(await expected.clone().text());
    } finally {
      f.close();
    }
  });

  it("builds the answer's headers once, when first read, in the order sent; a change to them stays, and a clone carries it", async () => {
    handler = (_req, res) => {
      res.setHeader('x-first', '1');
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.setHeader('x-last', 'z');
      res.end('{}');
    };
    const f = nodeUpstreamFetch();
    try {
      const res = await f(`${base}/h`);
      expect(res.status).toBe(200);
      const headers = res.headers;
      expect(res.headers).toBe(headers); // one object: not rebuilt per read
      const names = [...headers.keys()];
      expect(names.indexOf('x-first')).toBeLessThan(names.indexOf('x-last'));
      expect(headers.getSetCookie()).toEqual(['a=1', 'b=2']);
      headers.set('x-added', 'yes');
      expect(res.headers.get('x-added')).toBe('yes');
      const copy = res.clone();
      expect(copy.headers.get('x-added')).toBe('yes');
      expect(copy.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
      expect(copy.headers).not.toBe(res.headers);
      // never read: a clone taken first still gets every header
      const unread = await f(`${base}/h`);
      expect(unread.clone().headers.get('x-last')).toBe('z');
      expect(await unread.json()).toEqual({});
    } finally {
      f.close();
    }
  });

  it('accepts Headers and header pairs, sends content-length 0 on an empty POST, and returns null bodies for 204 and HEAD', async () => {
    handler = (req, res) => {
      if (req.method === 'HEAD') return void res.writeHead(200, { 'content-length': '5' }).end();
      res.writeHead(204).end();
    };
    const f = nodeUpstreamFetch();
    try {
      const a = await f(`${base}/a`, { method: 'POST', headers: new Headers({ 'x-one': '1' }) });
      expect(a.status).toBe(204);
      expect(a.body).toBeNull();
      // as a platform Response with a null body
      expect([await a.text(), await a.text(), a.bodyUsed]).toEqual(['', '', false]);
      expect(seen[0]!.headers['x-one']).toBe('1');
      expect(seen[0]!.headers['content-length']).toBe('0');
      const b = await f(`${base}/b`, { method: 'HEAD', headers: [['x-two', '2']] });
      expect(b.status).toBe(200);
      expect(b.body).toBeNull();
      expect(seen[1]!.headers['x-two']).toBe('2');
    } finally {
      f.close();
    }
  });

  it('keeps connections alive: sequential calls share one socket', async () => {
    handler = (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    const f = nodeUpstreamFetch();
    try {
      for (let i = 0; i < 5; i++) expect(await (await f(`${base}/k`)).text()).toBe('ok');
      expect(new Set(seen.map((s) => s.socket)).size).toBe(1);
    } finally {
      f.close();
    }
  });

  it('decompresses a gzip body, like fetch', async () => {
    handler = (_req, res) =>
      res
        .writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'application/json' })
        .end(gzipSync('{"zipped":true}'));
    const f = nodeUpstreamFetch();
    try {
      expect(await (await f(`${base}/z`)).json()).toEqual({ zipped: true });
    } finally {
      f.close();
    }
  });

  it('rejects with the signal reason when AbortSignal.timeout fires, and at once for an aborted signal', async () => {
    handler = () => {}; // never answers
    const f = nodeUpstreamFetch();
    try {
      const t0 = Date.now();
      const err = await f(`${base}/slow`, { signal: AbortSignal.timeout(100) }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DOMException);
      expect((err as DOMException).name).toBe('TimeoutError');
      expect(Date.now() - t0).toBeLessThan(5000);
      await new Promise((r) => setTimeout(r, 50));
      expect(seen[0]!.socket.destroyed).toBe(true); // the request was torn down, not left hanging
      const c = new AbortController();
      c.abort();
      const early = await f(`${base}/never`, { signal: c.signal }).catch((e: unknown) => e);
      expect((early as DOMException).name).toBe('AbortError');
      expect(seen).toHaveLength(1);
    } finally {
      f.close();
    }
  });

  it('takes the adapter deadline as a number (FETCH_DEADLINE_MS): rejects with the TimeoutError a timeout signal gives, tears the request down, and leaves no timer behind a settled call', async () => {
    const f = nodeUpstreamFetch();
    try {
      expect(f[FETCH_DEADLINE_MS]).toBe(true);
      handler = () => {}; // never answers
      const t0 = Date.now();
      const err = await f(`${base}/slow`, { [FETCH_DEADLINE_MS]: 100 } as RequestInit).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DOMException);
      expect((err as DOMException).name).toBe('TimeoutError');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(90);
      expect(Date.now() - t0).toBeLessThan(5000);
      await new Promise((r) => setTimeout(r, 50));
      expect(seen[0]!.socket.destroyed).toBe(true);
      // A call answered in time resolves and its timer never fires later.
      handler = (_req, res) => res.end('on time');
      const res = await f(`${base}/fast`, { [FETCH_DEADLINE_MS]: 100 } as RequestInit);
      expect(await res.text()).toBe('on time');
      await new Promise((r) => setTimeout(r, 150));
      expect(seen.at(-1)!.socket.destroyed).toBe(false); // kept alive, not torn down by a stale timer
    } finally {
      f.close();
    }
  });

  it('rejects a refused connection with TypeError("fetch failed") and the cause, like fetch', async () => {
    const f = nodeUpstreamFetch();
    const err = await f(`http://127.0.0.1:${await deadPort()}/x`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as TypeError).message).toBe('fetch failed');
    expect(((err as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    f.close();
  });

  it('sends a GET again on a new socket when its kept-alive socket was closed by the server, never a POST', async () => {
    // The server drops a connection, unanswered, at the second request it carries.
    const perSocket = new WeakMap<Socket, number>();
    handler = (req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      if (n === 2) return void req.socket.destroy();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    };
    const f = nodeUpstreamFetch();
    try {
      expect((await f(`${base}/1`)).status).toBe(200);
      expect(await (await f(`${base}/2`)).text()).toBe('ok'); // reset on the reused socket, retried on a new one
      expect(seen.map((s) => s.url)).toEqual(['/1', '/2', '/2']);
    } finally {
      f.close();
    }
  });

  it('does not retry a POST whose kept-alive socket was reset', async () => {
    const perSocket = new WeakMap<Socket, number>();
    handler = (req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      if (n === 2) return void req.socket.destroy();
      res.writeHead(200).end('ok');
    };
    const f = nodeUpstreamFetch();
    try {
      expect((await f(`${base}/1`, { method: 'POST', body: 'a' })).status).toBe(200);
      const err = await f(`${base}/2`, { method: 'POST', body: 'b' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TypeError);
      expect(seen.map((s) => s.url)).toEqual(['/1', '/2']);
    } finally {
      f.close();
    }
  });

  it('refuses what fetch refuses: a body on GET, credentials in the URL, redirect "error" on a 3xx', async () => {
    handler = (_req, res) => res.writeHead(302, { location: '/elsewhere' }).end();
    const f = nodeUpstreamFetch();
    try {
      await expect(f(`${base}/g`, { method: 'GET', body: 'x' })).rejects.toThrow(TypeError);
      await expect(f(`http://u:p@127.0.0.1:1/`)).rejects.toThrow(/credentials/);
      await expect(f(`${base}/r`, { redirect: 'error' })).rejects.toThrow(TypeError);
      const manual = await f(`${base}/r`, { redirect: 'manual' });
      expect(manual.status).toBe(302);
      expect(manual.headers.get('location')).toBe('/elsewhere');
    } finally {
      f.close();
    }
  });
});

describe('the adapter over nodeUpstreamFetch', () => {
  it('serves /auth/users/me from the real API over loopback HTTP', async () => {
    let apiServer: ReturnType<typeof serve> | undefined;
    const f = nodeUpstreamFetch();
    let apiBase = '';
    // The API is served on a real port; the adapter keeps TEST_ISSUER as its
    // URL (JWKS audience) and the transport goes to the port.
    const h = await makeHarness({ fetch: (u, init) => f(u.replace(TEST_ISSUER, apiBase), init) });
    try {
      await new Promise<void>((r) => {
        apiServer = serve({ fetch: h.t.api.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
          apiBase = `http://127.0.0.1:${info.port}`;
          r();
        });
      });
      const { user, cookies } = await signedInBrowser(h);
      const me = await h.send('GET', '/auth/users/me', { cookies });
      expect(me.status).toBe(200);
      expect(me.body.user.email).toBe(user.email);
      const sessions = await h.send('GET', '/auth/sessions', { cookies });
      expect(sessions.status).toBe(200);
    } finally {
      f.close();
      await new Promise<void>((r) => (apiServer ? apiServer.close(() => r()) : r()));
    }
  });

  it('answers 502 upstream_unavailable when the API refuses the connection', async () => {
    const port = await deadPort();
    const f = nodeUpstreamFetch();
    const h = await makeHarness({ fetch: (u, init) => f(u.replace(TEST_ISSUER, `http://127.0.0.1:${port}`), init) });
    try {
      const { cookies } = await signedInBrowser(h);
      const res = await h.send('GET', '/auth/sessions', { cookies });
      expect(res.status).toBe(502);
      expect(res.body).toEqual({ error: 'upstream_unavailable', message: 'Auth server unreachable' });
      const login = await h.send('POST', '/auth/login', {
        body: { identifier: 'someone@example.com' },
        headers: { origin: 'http://localhost:3000' },
      });
      expect(login.status).toBe(502);
      expect(login.body.error).toBe('upstream_unavailable');
    } finally {
      f.close();
    }
  });
});
