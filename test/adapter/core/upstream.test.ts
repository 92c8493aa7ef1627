/**
 * Upstream calls (contract §5.2): query forwarding, path parameters, client
 * IP/UA headers, the 10 s timeout and body parsing, on `callUpstream` with a
 * recording `fetch`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FETCH_DEADLINE_MS, type DeadlineInit } from '../../../adapter/core/fetch-deadline.js';
import { buildQuery, callUpstream, fillPath, ipLiteral, UPSTREAM_TIMEOUT_MS } from '../../../adapter/core/upstream.js';

interface Seen {
  url: string;
  init: RequestInit;
}

function recorder(
  answer: (seen: Seen) => Promise<Response> | Response = () => new Response('{"ok":true}', { status: 200 }),
) {
  const calls: Seen[] = [];
  const fetch = async (url: string, init?: RequestInit) => {
    const seen = { url, init: init ?? {} };
    calls.push(seen);
    return answer(seen);
  };
  return { calls, fetch };
}

const base = { method: 'GET', path: '/sessions', serviceToken: 'Bearer svc', client: {} };

describe('query and path', () => {
  it('stringifies scalars, repeats arrays, drops null and objects, and adds no ? when empty', () => {
    expect(
      buildQuery({
        limit: 5,
        search: 'a b&c',
        on: true,
        type: ['login', 'otp'],
        gone: null,
        nested: { x: 1 },
        undef: undefined,
      }),
    ).toBe('?limit=5&search=a+b%26c&on=true&type=login&type=otp');
    expect(buildQuery({ gone: null, nested: {} })).toBe('');
    expect(buildQuery(undefined)).toBe('');
  });

  it('encodes each path parameter into exactly one segment', () => {
    expect(
      fillPath('/organizations/:organizationId/members/:userId', { organizationId: '../admin', userId: 'a/b?c#d' }),
    ).toBe('/organizations/..%2Fadmin/members/a%2Fb%3Fc%23d');
  });
});

describe('client context headers', () => {
  it('sends only IP literals (IPv4-mapped IPv6 unwrapped) and a trimmed UA of at most 512 characters', async () => {
    expect(ipLiteral('203.0.113.9')).toBe('203.0.113.9');
    expect(ipLiteral('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(ipLiteral('[2001:DB8::1]')).toBe('2001:db8::1');
    for (const bad of ['example.com', '203.0.113.9, 10.0.0.1', '999.1.1.1', 'unknown', '', undefined])
      expect(ipLiteral(bad)).toBeUndefined();

    const r = recorder();
    await callUpstream(r.fetch, 'http://api.test', {
      ...base,
      client: { ip: '10.0.0.1, 203.0.113.9', userAgent: `  ${'u'.repeat(600)}  ` },
    });
    const headers = new Headers(r.calls[0]!.init.headers);
    expect(headers.get('x-svc-client-ip')).toBeNull();
    expect(headers.get('x-svc-client-user-agent')).toBe('u'.repeat(512));
    expect(headers.get('x-svc-service-token')).toBe('Bearer svc');
    expect(headers.get('authorization')).toBeNull();
    expect(headers.get('content-type')).toBeNull();
    expect(r.calls[0]!.init.body).toBeUndefined();
    expect(r.calls[0]!.url).toBe('http://api.test/sessions');
  });

  it('sends a JSON body with its content type on non-GET calls only, and never follows redirects', async () => {
    const r = recorder();
    await callUpstream(r.fetch, 'http://api.test', { ...base, method: 'GET', body: { a: 1 } });
    await callUpstream(r.fetch, 'http://api.test', {
      ...base,
      method: 'DELETE',
      path: '/users/credentials',
      body: { id: 'x' },
      authorization: 'Bearer user',
    });
    expect(r.calls[0]!.init.body).toBeUndefined();
    expect(r.calls[1]!.init.body).toBe('{"id":"x"}');
    expect(new Headers(r.calls[1]!.init.headers).get('content-type')).toBe('application/json');
    expect(new Headers(r.calls[1]!.init.headers).get('authorization')).toBe('Bearer user');
    expect(r.calls[1]!.init.redirect).toBe('manual');
  });
});

describe('answers and failures', () => {
  const realTimeout = AbortSignal.timeout;
  afterEach(() => {
    AbortSignal.timeout = realTimeout;
  });

  it('gives up after 10 s: the fetch carries a 10 000 ms timeout signal and an abort is "unreachable"', async () => {
    const requested: number[] = [];
    const controller = new AbortController();
    AbortSignal.timeout = (ms: number) => {
      requested.push(ms);
      return controller.signal;
    };
    const r = recorder(
      ({ init }) =>
        new Promise<Response>((_, reject) => {
          init.signal!.addEventListener('abort', () =>
            reject(new DOMException('The operation timed out.', 'TimeoutError')),
          );
        }),
    );
    const pending = callUpstream(r.fetch, 'http://api.test', base);
    await new Promise((res) => setTimeout(res, 5));
    expect(requested).toEqual([UPSTREAM_TIMEOUT_MS]);
    expect(UPSTREAM_TIMEOUT_MS).toBe(10_000);
    controller.abort();
    expect(await pending).toEqual({ ok: false, reason: 'unreachable' });
  });

  it('gives a fetch that declares FETCH_DEADLINE_MS the 10 s deadline as a number, with no timeout signal built', async () => {
    let built = 0;
    AbortSignal.timeout = () => {
      built++;
      return new AbortController().signal;
    };
    const r = recorder();
    const deadlineFetch = Object.assign(r.fetch, { [FETCH_DEADLINE_MS]: true as const });
    expect(await callUpstream(deadlineFetch, 'http://api.test', base)).toMatchObject({ ok: true, status: 200 });
    const init = r.calls[0]!.init as DeadlineInit;
    expect(init[FETCH_DEADLINE_MS]).toBe(UPSTREAM_TIMEOUT_MS);
    expect(init.signal).toBeUndefined();
    expect(built).toBe(0);
  });

  it('parses an empty body as undefined, keeps non-JSON text as a non-object, and relays Retry-After', async () => {
    const empty = await callUpstream(
      recorder(() => new Response(null, { status: 204 })).fetch,
      'http://api.test',
      base,
    );
    expect(empty).toEqual({ ok: true, status: 204, body: undefined, retryAfter: null });
    const html = await callUpstream(
      recorder(() => new Response('<html>oops</html>', { status: 502 })).fetch,
      'http://api.test',
      base,
    );
    expect(html).toMatchObject({ ok: true, status: 502, body: '<html>oops</html>' });
    const limited = await callUpstream(
      recorder(() => new Response('{"error":"rate_limited"}', { status: 429, headers: { 'retry-after': '7' } })).fetch,
      'http://api.test',
      base,
    );
    expect(limited).toEqual({ ok: true, status: 429, body: { error: 'rate_limited' }, retryAfter: '7' });
  });
});
