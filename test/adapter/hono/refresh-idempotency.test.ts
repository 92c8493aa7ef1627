/**
 * The adapter's `Idempotency-Key` on upstream refreshes (contract
 * §5.7 as amended in docs/contract-changes.md): every `POST /refresh` it makes
 * carries one; `POST /auth/refresh` forwards the client's well-formed key (both
 * transports) instead of generating one; a lost upstream answer (network
 * failure, 502, 503) is retried once with the same key, never a 401; no other
 * browser header reaches the API. Both the Hono and the Express mounts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_KEY_PATTERN } from '../../../common/idempotency-key.js';
import { TEST_ISSUER } from '../../helpers/make-app.js';
import { closeServers, expressMount } from '../express/harness.js';
import {
  honoMount,
  makeHarness,
  refreshOnlyBrowser,
  signedInBrowser,
  type Harness,
  type Mount,
  type UpstreamCall,
} from '../helpers.js';

afterAll(closeServers);

const KEY = 'client-key-0123456789abcdef';
const refreshCalls = (h: Harness) => h.upstream.filter((c) => c.path === '/refresh');
const keyOf = (c: UpstreamCall) => c.headers.get('idempotency-key');

/** Lets the real API answer, then loses that answer (a reset connection after the API committed). */
function loseFirstRefreshAnswer(h: Harness, how: 'throw' | 502 | 503 = 'throw') {
  let lost = false;
  h.intercept = async (call) => {
    if (call.path !== '/refresh' || lost) return undefined;
    lost = true;
    const committed = await h.t.api.request(`${TEST_ISSUER}/refresh`, { method: 'POST', headers: call.headers });
    expect(committed.status).toBe(200);
    if (how === 'throw') throw new TypeError('fetch failed: socket hang up');
    return new Response(JSON.stringify({ error: 'upstream_error' }), {
      status: how,
      headers: { 'content-type': 'application/json' },
    });
  };
}

describe.each([
  ['hono', honoMount],
  ['express', expressMount],
] as [string, Mount][])('%s adapter: Idempotency-Key on refresh', (_, mount) => {
  const harness = () => makeHarness({}, { DISABLE_AUTH_RATE_LIMITS: 'true' }, { mount });

  it('cookie transport: forwards the client key to POST /refresh, and nothing else of the browser', async () => {
    const h = await harness();
    const { cookies } = await refreshOnlyBrowser(h);
    const res = await h.send('POST', '/auth/refresh', {
      cookies,
      headers: {
        'idempotency-key': KEY,
        'x-custom': 'secret-ish',
        origin: 'http://localhost:3000',
        'x-request-id': 'r1',
      },
    });
    expect(res.status).toBe(200);
    const [call] = refreshCalls(h);
    expect(keyOf(call!)).toBe(KEY);
    for (const name of ['x-custom', 'cookie', 'origin', 'x-request-id', 'x-svc-auth-transport'])
      expect(call!.headers.get(name)).toBeNull();
  });

  it('bearer transport: forwards the client key; without one, generates a fresh well-formed key per refresh', async () => {
    const h = await harness();
    const { env } = await refreshOnlyBrowser(h);
    const bearer = (token: string, key?: string) =>
      h.send('POST', '/auth/refresh', {
        headers: {
          'x-svc-auth-transport': 'bearer',
          authorization: `Bearer ${token}`,
          ...(key ? { 'idempotency-key': key } : {}),
        },
      });
    const first = await bearer(env.refreshToken, KEY);
    expect(first.status).toBe(200);
    const second = await bearer(first.body.refreshToken);
    expect(second.status).toBe(200);
    const third = await bearer(second.body.refreshToken);
    expect(third.status).toBe(200);
    const keys = refreshCalls(h).map(keyOf);
    expect(keys[0]).toBe(KEY);
    expect(keys[1]).toMatch(IDEMPOTENCY_KEY_PATTERN);
    expect(keys[2]).toMatch(IDEMPOTENCY_KEY_PATTERN);
    expect(keys[1]).not.toBe(keys[2]);
  });

  it('answers 400 invalid_request to a malformed client key, with no upstream call', async () => {
    const h = await harness();
    const { env, cookies } = await refreshOnlyBrowser(h);
    const viaCookie = await h.send('POST', '/auth/refresh', { cookies, headers: { 'idempotency-key': 'short' } });
    expect(viaCookie.status).toBe(400);
    expect(viaCookie.body.error).toBe('invalid_request');
    expect(viaCookie.setCookies).toEqual([]);
    const viaBearer = await h.send('POST', '/auth/refresh', {
      headers: {
        'x-svc-auth-transport': 'bearer',
        authorization: `Bearer ${env.refreshToken}`,
        'idempotency-key': 'has spaces in it 0123',
      },
    });
    expect(viaBearer.status).toBe(400);
    expect(refreshCalls(h)).toEqual([]);
  });

  it('ensureCookies refreshes with its own key; a client key on another route is never forwarded', async () => {
    const h = await harness();
    const { cookies } = await refreshOnlyBrowser(h);
    const res = await h.send('GET', '/auth/users/me', { cookies, headers: { 'idempotency-key': KEY } });
    expect(res.status).toBe(200);
    const [refresh] = refreshCalls(h);
    expect(keyOf(refresh!)).toMatch(IDEMPOTENCY_KEY_PATTERN);
    expect(keyOf(refresh!)).not.toBe(KEY);
    const me = h.upstream.find((c) => c.path === '/users/me');
    expect(keyOf(me!)).toBeNull();
  });

  it('a client retry after a lost answer reaches the API with the client key and gets the retry answer', async () => {
    const h = await harness();
    const { env } = await refreshOnlyBrowser(h);
    const headers = {
      'x-svc-auth-transport': 'bearer',
      authorization: `Bearer ${env.refreshToken}`,
      'idempotency-key': KEY,
    };
    // The first answer is lost past the adapter (say, between the adapter and the app): the client sends it again.
    const lost = await h.send('POST', '/auth/refresh', { headers });
    expect(lost.status).toBe(200);
    h.t.clock.advance(6_000); // past the adapter's 5 s dedup replay: the retry goes upstream
    const retry = await h.send('POST', '/auth/refresh', { headers });
    expect(retry.status).toBe(200);
    expect(retry.body.refreshToken).not.toBe(lost.body.refreshToken);
    expect(refreshCalls(h).map(keyOf)).toEqual([KEY, KEY]);
    // Without the key the same replay is reuse.
    h.t.clock.advance(6_000);
    const replay = await h.send('POST', '/auth/refresh', {
      headers: { 'x-svc-auth-transport': 'bearer', authorization: `Bearer ${env.refreshToken}` },
    });
    expect(replay.status).toBe(401);
    expect(replay.body.error).toBe('refresh_token_reused');
  });
});

describe('the adapter retries a lost upstream refresh once, with the same key', () => {
  const harness = () => makeHarness({}, { DISABLE_AUTH_RATE_LIMITS: 'true' });

  it.each(['throw', 502, 503] as const)(
    'lost answer (%s) after the API committed: one retry, same key, a working session',
    async (how) => {
      const h = await harness();
      const { cookies } = await refreshOnlyBrowser(h);
      loseFirstRefreshAnswer(h, how);
      const res = await h.send('POST', '/auth/refresh', { cookies });
      expect(res.status).toBe(200);
      const calls = refreshCalls(h);
      expect(calls).toHaveLength(2);
      expect(keyOf(calls[0]!)).toMatch(IDEMPOTENCY_KEY_PATTERN);
      expect(keyOf(calls[1]!)).toBe(keyOf(calls[0]!));
      // The retried session works: the user is still signed in.
      const me = await h.send('GET', '/auth/users/me', { cookies: res.cookies });
      expect(me.status).toBe(200);
    },
  );

  it('ensureCookies retries the same way (a signed-in page load survives a lost refresh answer)', async () => {
    const h = await harness();
    const { cookies } = await refreshOnlyBrowser(h);
    loseFirstRefreshAnswer(h);
    const res = await h.send('GET', '/auth/users/me', { cookies });
    expect(res.status).toBe(200);
    const calls = refreshCalls(h);
    expect(calls.map(keyOf)).toEqual([keyOf(calls[0]!), keyOf(calls[0]!)]);
  });

  it('is bounded: two lost answers give up with 502, a 401 is never retried', async () => {
    const h = await harness();
    const { cookies } = await refreshOnlyBrowser(h);
    h.intercept = (call) => {
      if (call.path === '/refresh') throw new TypeError('fetch failed');
      return undefined;
    };
    const down = await h.send('POST', '/auth/refresh', { cookies });
    expect(down.status).toBe(502);
    expect(down.body.error).toBe('upstream_unavailable');
    expect(refreshCalls(h)).toHaveLength(2);

    h.intercept = null;
    h.upstream.length = 0;
    const other = await signedInBrowser(h);
    await h.t.call('DELETE', '/logout', { token: other.env.token });
    const refused = await h.send('POST', '/auth/refresh', { cookies: { 'svc-refresh': other.cookies['svc-refresh'] } });
    expect(refused.status).toBe(401);
    expect(refreshCalls(h)).toHaveLength(1);
  });
});
