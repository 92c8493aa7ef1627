/**
 * The API's request headers on Node: under @hono/node-server the
 * middleware reads Node's own parsed headers (`requestHeader`,
 * common/hono-request.ts) instead of making Hono build a WHATWG `Headers` per
 * request. Over a real socket, each header the pipeline reads must decide what
 * it decides through `app.request` (the WHATWG path): the bearer credential,
 * the service token with the forwarded client IP and user agent, the CORS
 * origin check and the declared body size.
 */
import type { AddressInfo } from 'node:net';
import type { ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveNode } from '../../../src/node.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { makeApi, TEST_ISSUER, type TestApi } from '../../helpers/make-app.js';
import { serviceToken } from '../../helpers/service-token.js';

let t: TestApi;
let server: ServerType;
let base: string;

beforeAll(async () => {
  t = await makeApi({ sender: null });
  server = serveNode(t.api.fetch, { port: 0, hostname: '127.0.0.1', requestTimeoutMs: 5000 });
  base = await new Promise<string>((resolve) =>
    server.once('listening', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
});
afterAll(() => {
  server.close();
});

interface Answer {
  status: number;
  body: unknown;
  allowOrigin: string | null;
}

/** The same request over the socket (Node's headers) and through `app.request` (WHATWG headers). */
async function both(path: string, init: RequestInit): Promise<[Answer, Answer]> {
  const answer = async (r: Response): Promise<Answer> => ({
    status: r.status,
    body: await r.json(),
    allowOrigin: r.headers.get('access-control-allow-origin'),
  });
  return [await answer(await fetch(`${base}${path}`, init)), await answer(await t.api.request(path, init))];
}

async function lastEvent(type: string): Promise<{ ip_address: string | null; user_agent: string | null }> {
  const r = await t.client.execute({
    sql: 'SELECT ip_address, user_agent FROM auth_events WHERE type = ? ORDER BY rowid DESC LIMIT 1',
    args: [type],
  });
  return r.rows[0] as unknown as { ip_address: string | null; user_agent: string | null };
}

describe('API headers over a real socket (Node)', () => {
  it('reads the bearer credential as the WHATWG path does', async () => {
    const user = await createUser(t, { email: 'headers@example.com' });
    const { token } = await signIn(t, user);
    for (const authorization of [`Bearer ${token}`, `bearer  ${token}`, `Bearer ${token}x`, 'Basic abc']) {
      const [node, web] = await both('/users/me', { headers: { authorization } });
      expect(node, authorization.slice(0, 12)).toEqual(web);
    }
    const [ok] = await both('/users/me', { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    const [none, noneWeb] = await both('/users/me', {});
    expect([none.status, noneWeb.status]).toEqual([401, 401]);
  });

  it('takes the forwarded client IP and user agent only with a valid service token', async () => {
    const identifier = 'nobody-headers@example.com';
    const forwarded = {
      'content-type': 'application/json',
      'x-svc-client-ip': '198.51.100.9',
      'x-svc-client-user-agent': 'forwarded-agent/1.0',
      'user-agent': 'socket-agent/1.0',
    };
    const trusted = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { ...forwarded, 'x-svc-service-token': await serviceToken(t.clock.now(), { sub: 'svc-hono-adapter' }) },
      body: JSON.stringify({ identifier }),
    });
    expect(trusted.status).toBe(200);
    expect(await lastEvent('login_failed')).toEqual({ ip_address: '198.51.100.9', user_agent: 'forwarded-agent/1.0' });
    const untrusted = await fetch(`${base}/login`, {
      method: 'POST',
      headers: {
        ...forwarded,
        'x-svc-service-token': await serviceToken(t.clock.now(), {
          secret: 'wrong-secret-0123456789abcdef-0123456789',
        }),
      },
      body: JSON.stringify({ identifier }),
    });
    expect(untrusted.status).toBe(200);
    // Untrusted: the forwarded values are ignored (this test API has no connection-IP hook, so the IP is unknown).
    expect(await lastEvent('service_token_failed')).toEqual({ ip_address: null, user_agent: 'socket-agent/1.0' });
    expect(await lastEvent('login_failed')).toEqual({ ip_address: null, user_agent: 'socket-agent/1.0' });
  });

  it('checks the Origin header as the WHATWG path does', async () => {
    for (const origin of [TEST_ISSUER, 'http://evil.example']) {
      const [node, web] = await both('/health/status', { headers: { origin } });
      expect(node, origin).toEqual(web);
    }
    const [allowed, refused] = [
      (await both('/health/status', { headers: { origin: TEST_ISSUER } }))[0],
      (await both('/health/status', { headers: { origin: 'http://evil.example' } }))[0],
    ];
    expect(allowed).toMatchObject({ status: 200, allowOrigin: TEST_ISSUER });
    expect(refused).toMatchObject({ status: 403, body: { error: 'origin_not_allowed' } });
  });

  it('refuses a declared body over the limit before reading it', async () => {
    const res = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(200 * 1024) },
      body: JSON.stringify({ identifier: 'x@example.com' }).padEnd(200 * 1024, ' '),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'payload_too_large' });
  });
});
