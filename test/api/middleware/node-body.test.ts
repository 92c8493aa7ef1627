/**
 * Request bodies read straight from Node's IncomingMessage (the fast path:
 * src/http/node-body.ts and adapter/hono/node-body.ts), over a real socket as
 * @hono/node-server serves them: the same JSON, 400 and 413 answers as the
 * WHATWG-stream path, for the API and for the adapter; and the reader's own
 * rules (concatenation, the limit, a connection closed early, a body already
 * owned by another reader).
 */
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcAdapter } from '../../../adapter/hono/index.js';
import { nodeIncoming, readNodeBody } from '../../../common/body.js';
import { serveNode } from '../../../src/node.js';
import { COOKIE_SECRET, APP_ORIGIN } from '../../adapter/helpers.js';
import { createUser } from '../../helpers/factories.js';
import { makeApi, TEST_ISSUER, TEST_SERVICE_TOKEN, type TestApi } from '../../helpers/make-app.js';

let t: TestApi;
let apiServer: ServerType;
let appServer: ServerType;
let apiUrl: string;
let appUrl: string;
const upstreamBodies: (string | undefined)[] = [];

const listen = (s: ServerType) =>
  new Promise<string>((resolve) =>
    s.once('listening', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)),
  );

beforeAll(async () => {
  t = await makeApi({ sender: null });
  apiServer = serveNode(t.api.fetch, { port: 0, hostname: '127.0.0.1', requestTimeoutMs: 5000 });
  apiUrl = await listen(apiServer);
  const app = new Hono();
  app.route(
    '/auth',
    svcAdapter({
      authServerUrl: TEST_ISSUER,
      audience: TEST_ISSUER,
      cookieSecret: COOKIE_SECRET,
      serviceSecret: TEST_SERVICE_TOKEN,
      issuer: APP_ORIGIN,
      now: () => t.clock.now(),
      log: () => {},
      fetch: async (input: string, init?: RequestInit) => {
        upstreamBodies.push(init?.body as string | undefined);
        return t.api.request(input, init);
      },
    }),
  );
  appServer = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  appUrl = await listen(appServer);
});
afterAll(() => {
  apiServer.close();
  appServer.close();
});

/** A chunked body (no Content-Length) of `size` bytes, sent in 8 KB pieces. */
function chunked(size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= size) return controller.close();
      const n = Math.min(8192, size - sent);
      sent += n;
      controller.enqueue(new Uint8Array(n).fill(0x20));
    },
  });
}

const post = (url: string, body: BodyInit, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(url.startsWith(appUrl) ? { origin: APP_ORIGIN } : {}),
      ...headers,
    },
    body,
    duplex: 'half',
  } as RequestInit);

describe('bodies read from the Node request (API over a socket)', () => {
  it('parses a JSON body', async () => {
    const user = await createUser(t);
    const res = await post(`${apiUrl}/login`, JSON.stringify({ identifier: user.email }));
    expect(res.status).toBe(200);
    expect((await res.json()).sub).toBe(user.id);
  });

  it('answers 400 to malformed JSON and 413 to a body over 100 KB without Content-Length', async () => {
    const bad = await post(`${apiUrl}/login`, '{"identifier":');
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toBe('invalid_request');
    const big = await post(`${apiUrl}/login`, chunked(100 * 1024 + 1));
    expect(big.status).toBe(413);
    expect((await big.json()).error).toBe('payload_too_large');
    // Exactly at the limit the body is read (and is whitespace, so no body: 400 from the validator).
    expect((await post(`${apiUrl}/login`, chunked(100 * 1024))).status).toBe(400);
  });
});

describe('bodies read from the Node request (adapter over a socket)', () => {
  it('forwards the parsed body upstream', async () => {
    const user = await createUser(t);
    upstreamBodies.length = 0;
    const res = await post(`${appUrl}/auth/login`, JSON.stringify({ identifier: user.email }));
    expect(res.status).toBe(200);
    expect(upstreamBodies.map((b) => (b ? JSON.parse(b) : b))).toContainEqual({ identifier: user.email });
  });

  it('answers 400 to malformed JSON and 413 to a body over 100 KB without Content-Length, calling nothing upstream', async () => {
    upstreamBodies.length = 0;
    const bad = await post(`${appUrl}/auth/login`, '{"identifier":');
    expect(bad.status).toBe(400);
    const big = await post(`${appUrl}/auth/login`, chunked(100 * 1024 + 1));
    expect(big.status).toBe(413);
    expect((await big.json()).error).toBe('payload_too_large');
    expect(upstreamBodies).toEqual([]);
  });
});

describe.each([['shared (API and adapter)', nodeIncoming, readNodeBody]] as const)(
  'the %s reader',
  (_name, incomingOf, read) => {
    const stream = () => Object.assign(new PassThrough(), { complete: false });

    it('concatenates chunks and stops at the limit', async () => {
      const s = stream();
      const body = read(incomingOf({ incoming: s })!, 10);
      s.write(new Uint8Array([1, 2, 3]));
      s.end(new Uint8Array([4, 5]));
      expect([...((await body) as Uint8Array)]).toEqual([1, 2, 3, 4, 5]);
      const s2 = stream();
      const over = read(incomingOf({ incoming: s2 })!, 4);
      s2.write(new Uint8Array([1, 2, 3]));
      s2.write(new Uint8Array([4, 5]));
      expect(await over).toBe('too_large');
    });

    it('rejects when the connection closes before the end', async () => {
      const s = stream();
      const body = read(incomingOf({ incoming: s })!, 10);
      s.write(new Uint8Array([1]));
      s.destroy();
      await expect(body).rejects.toThrow();
    });

    it('leaves a body that another reader owns (or already read) to the stream path', async () => {
      expect(incomingOf(undefined)).toBeNull();
      expect(incomingOf({})).toBeNull();
      const owned = stream();
      owned.on('data', () => {});
      expect(incomingOf({ incoming: owned })).toBeNull();
      const consumed = stream();
      consumed.end(new Uint8Array([1]));
      consumed.resume();
      await new Promise((r) => consumed.once('end', r));
      expect(incomingOf({ incoming: consumed })).toBeNull();
      expect(incomingOf({ incoming: stream() })).not.toBeNull();
    });
  },
);
