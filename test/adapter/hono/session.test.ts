import { describe, expect, it } from 'vitest';
import { createCookieCodec } from '../../../adapter/core/cookies.js';
import { makeHarness, refreshOnlyBrowser, signedInBrowser, upstreamPaths } from '../helpers.js';

const TOKEN_KEYS = /"(token|refreshToken)"\s*:/;

describe('svcAdapter cookie transport: sessions', () => {
  it('POST /auth/refresh sets access and refresh cookies with exact dev attributes and no token in the body', async () => {
    const h = await makeHarness();
    const { user, cookies } = await refreshOnlyBrowser(h);
    const res = await h.send('POST', '/auth/refresh', { cookies });
    expect(res.status).toBe(200);
    expect(res.text).not.toMatch(TOKEN_KEYS);
    expect(Object.keys(res.body).sort()).toEqual([
      'email',
      'message',
      'organizationId',
      'phone',
      'refreshTtl',
      'roles',
      'sessionId',
      'sub',
      'ttl',
    ]);
    expect(res.body.sub).toBe(user.id);
    const expires = new Date(h.t.clock.now() + 900_000).toUTCString();
    expect(res.setCookies).toHaveLength(2);
    expect(res.setCookies[0]).toMatch(
      new RegExp(
        `^svc-access=[\\w-]+\\.[\\w-]+\\.[\\w-]+; Max-Age=900; Path=/; Expires=${expires}; HttpOnly; SameSite=Lax$`,
      ),
    );
    expect(res.setCookies[1]).toMatch(
      /^svc-refresh=[\w-]+\.[\w-]+\.[\w-]+; Max-Age=86400; Path=\/; Expires=[^;]+ GMT; HttpOnly; SameSite=Lax$/,
    );
    const me = await h.send('GET', '/auth/users/me', { cookies: res.cookies });
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(user.id);
    // /users/me 200 clears the ephemeral cookie (contract §5.5)
    expect(me.setCookies).toEqual([
      'svc-ephemeral=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax',
    ]);
  });

  it('uses Secure, SameSite=None and Domain in production mode (NODE_ENV read at construction)', async () => {
    const before = process.env['NODE_ENV'];
    process.env['NODE_ENV'] = 'production';
    let h;
    try {
      h = await makeHarness({ cookieDomain: 'example.test' });
    } finally {
      process.env['NODE_ENV'] = before;
    }
    const { cookies } = await refreshOnlyBrowser(h);
    const res = await h.send('POST', '/auth/refresh', { cookies, headers: { origin: 'http://localhost:3000' } });
    expect(res.status).toBe(200);
    expect(res.setCookies[0]).toMatch(
      /^svc-access=[^;]+; Max-Age=900; Domain=example\.test; Path=\/; Expires=[^;]+ GMT; HttpOnly; Secure; SameSite=None$/,
    );
    const me = await h.send('GET', '/auth/users/me', { cookies: res.cookies });
    expect(me.setCookies).toEqual([
      'svc-ephemeral=; Max-Age=0; Domain=example.test; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=None',
    ]);
  });

  it('treats a tampered or foreign-iss access cookie as absent', async () => {
    const h = await makeHarness();
    const { cookies, env, user } = await signedInBrowser(h);
    const [head, payload, sig] = cookies['svc-access'].split('.');
    const tampered = `${head}.${payload}.${sig!.slice(0, -2)}${sig!.endsWith('AA') ? 'BB' : 'AA'}`;
    const r1 = await h.send('GET', '/auth/users/me', { cookies: { 'svc-access': tampered } });
    expect(r1.status).toBe(401);
    expect(r1.body).toEqual({ error: 'unauthorized', message: 'Access session required' });
    expect(upstreamPaths(h)).toEqual([]);

    const foreignCookie = createCookieCodec(h.opts.cookieSecret, 'https://other.example').sign(
      {
        kind: 'access',
        sub: user.id,
        sessionId: env.sessionId,
        token: env.token,
        roles: env.roles,
        email: env.email,
        phone: null,
        organizationId: null,
      },
      900,
      h.t.clock.now(),
    );
    const r2 = await h.send('GET', '/auth/users/me', { cookies: { 'svc-access': foreignCookie } });
    expect(r2.status).toBe(401);
    expect(r2.setCookies).toEqual([
      'svc-access=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax',
    ]);
  });

  it('refuses a refresh cookie presented under the access name (kind check)', async () => {
    const h = await makeHarness();
    const { cookies } = await signedInBrowser(h);
    const res = await h.send('GET', '/auth/users/me', { cookies: { 'svc-access': cookies['svc-refresh'] } });
    expect(res.status).toBe(401);
    expect(upstreamPaths(h)).toEqual([]);
  });
});

describe('ensureCookies', () => {
  it('refreshes transparently when the access token is about to expire and the refresh cookie is valid', async () => {
    const h = await makeHarness();
    const { cookies, user } = await signedInBrowser(h);
    h.t.clock.advance(900_000 - 4_000); // inner token has < 5 s left
    const res = await h.send('GET', '/auth/users/me', { cookies });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(user.id);
    expect(upstreamPaths(h)).toEqual(['POST /refresh', 'GET /users/me']);
    expect(res.setCookies.map((s) => s.split('=')[0])).toEqual(['svc-ephemeral', 'svc-access', 'svc-refresh']);
    expect(res.cookies['svc-access']).not.toBe(cookies['svc-access']);
    expect(res.cookies['svc-refresh']).not.toBe(cookies['svc-refresh']);
    expect(res.text).not.toMatch(TOKEN_KEYS);
  });

  it('makes exactly one upstream /refresh for 100 parallel requests with only a refresh cookie', async () => {
    const h = await makeHarness();
    const { cookies } = await refreshOnlyBrowser(h);
    const results = await Promise.all(Array.from({ length: 100 }, () => h.send('GET', '/auth/sessions', { cookies })));
    expect(results.map((r) => r.status)).toEqual(Array(100).fill(200));
    expect(h.upstream.filter((c) => c.path === '/refresh')).toHaveLength(1);
    const newRefresh = new Set(results.map((r) => r.cookies['svc-refresh']));
    expect(newRefresh.size).toBe(1);
  });

  it('replays a success for 5 s, then the old refresh token is reuse and every auth cookie is cleared', async () => {
    const h = await makeHarness();
    const { cookies } = await refreshOnlyBrowser(h);
    const first = await h.send('GET', '/auth/sessions', { cookies });
    expect(first.status).toBe(200);
    const again = await h.send('GET', '/auth/sessions', { cookies });
    expect(again.status).toBe(200);
    expect(h.upstream.filter((c) => c.path === '/refresh')).toHaveLength(1);
    h.t.clock.advance(6_000);
    const reused = await h.send('GET', '/auth/sessions', { cookies });
    expect(reused.status).toBe(401);
    expect(reused.body.error).toBe('refresh_token_reused');
    expect(reused.setCookies.map((s) => s.split(';')[0])).toEqual(['svc-access=', 'svc-refresh=', 'svc-ephemeral=']);
    // the chain is revoked: the pair issued by the first refresh is dead too
    const after = await h.send('GET', '/auth/sessions', { cookies: { 'svc-refresh': first.cookies['svc-refresh']! } });
    expect(after.status).toBe(401);
  });

  it('answers 401 and clears present cookies when neither access nor refresh is usable, without calling the API', async () => {
    const h = await makeHarness();
    const { cookies } = await signedInBrowser(h);
    const res = await h.send('GET', '/auth/sessions', { cookies: { 'svc-access': `${cookies['svc-access']}x` } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'Access session required' });
    expect(res.setCookies.map((s) => s.split(';')[0])).toEqual(['svc-access=']);
    expect(h.upstream).toHaveLength(0);
  });

  it('answers 502 upstream_unavailable and clears nothing when the API is unreachable during refresh', async () => {
    const h = await makeHarness();
    const { cookies } = await refreshOnlyBrowser(h);
    h.intercept = () => {
      throw new TypeError('fetch failed');
    };
    const res = await h.send('GET', '/auth/sessions', { cookies });
    expect(res.status).toBe(502);
    expect(res.body.error).toBe('upstream_unavailable');
    expect(res.setCookies).toEqual([]);
  });
});

describe('logout', () => {
  it('DELETE /auth/logout answers 204, clears A, R and E, and revokes the session', async () => {
    const h = await makeHarness();
    const { cookies } = await signedInBrowser(h);
    const res = await h.send('DELETE', '/auth/logout', { cookies });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.setCookies.map((s) => s.split(';')[0])).toEqual(['svc-access=', 'svc-refresh=', 'svc-ephemeral=']);
    const me = await h.send('GET', '/auth/users/me', { cookies });
    expect(me.status).toBe(401);
  });

  it('DELETE /auth/logout without any session still answers 204 and clears cookies', async () => {
    const h = await makeHarness();
    const res = await h.send('DELETE', '/auth/logout');
    expect(res.status).toBe(204);
    expect(h.upstream).toHaveLength(0);
  });

  it('does not mount GET /auth/logout (405 with Allow: DELETE)', async () => {
    const h = await makeHarness();
    const { cookies } = await signedInBrowser(h);
    const res = await h.send('GET', '/auth/logout', { cookies });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('DELETE');
    expect(h.upstream).toHaveLength(0);
  });
});
