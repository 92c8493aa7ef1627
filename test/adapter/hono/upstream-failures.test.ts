import { SignJWT, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { TEST_ISSUER } from '../../helpers/make-app.js';
import { makeHarness, refreshOnlyBrowser, signedInBrowser, upstreamPaths } from '../helpers.js';

describe('forged or broken upstream answers', () => {
  it('refuses a session envelope whose token is signed by another key: 502 invalid_upstream_response, no cookie', async () => {
    const h = await makeHarness();
    const { user, cookies } = await refreshOnlyBrowser(h);
    const foreign = await generateKeyPair('RS256');
    h.intercept = async (call) => {
      if (call.path !== '/refresh') return undefined;
      const now = Math.floor(h.t.clock.now() / 1000);
      const token = await new SignJWT({ sub: user.id, sid: 's-forged', typ: 'access', roles: ['admin'] })
        .setProtectedHeader({ alg: 'RS256', kid: 'dev-main' })
        .setIssuer(TEST_ISSUER)
        .setAudience(TEST_ISSUER)
        .setIssuedAt(now)
        .setExpirationTime(now + 900)
        .sign(foreign.privateKey);
      const body = {
        message: 'Success',
        token,
        refreshToken: 'x'.repeat(43),
        sub: user.id,
        sessionId: 's-forged',
        organizationId: null,
        roles: ['admin'],
        email: user.email,
        phone: null,
        ttl: 900,
        refreshTtl: 86400,
      };
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const viaRoute = await h.send('POST', '/auth/refresh', { cookies });
    expect(viaRoute.status).toBe(502);
    expect(viaRoute.body).toEqual({
      error: 'invalid_upstream_response',
      message: 'Invalid signed response from auth server',
    });
    expect(viaRoute.setCookies).toEqual([]);
    const viaEnsure = await h.send('GET', '/auth/users/me', { cookies });
    expect(viaEnsure.status).toBe(502);
    expect(viaEnsure.setCookies).toEqual([]);
    const bearer = await h.send('POST', '/auth/refresh', {
      headers: { 'x-svc-auth-transport': 'bearer', authorization: 'Bearer abc' },
    });
    expect(bearer.status).toBe(502);
  });

  it('refuses an envelope with a non-positive ttl', async () => {
    const h = await makeHarness();
    const { cookies } = await refreshOnlyBrowser(h);
    h.intercept = async (call) => {
      if (call.path !== '/refresh') return undefined;
      h.intercept = null;
      const real = await h.t.api.request(`${TEST_ISSUER}/refresh`, {
        method: 'POST',
        headers: { authorization: call.headers.get('authorization')! },
      });
      const body = (await real.json()) as Record<string, unknown>;
      return new Response(JSON.stringify({ ...body, ttl: 0 }), { status: 200 });
    };
    const res = await h.send('POST', '/auth/refresh', { cookies });
    expect(res.status).toBe(502);
    expect(res.body.error).toBe('invalid_upstream_response');
    expect(res.setCookies).toEqual([]);
  });

  it('forwards API failures unchanged and maps a non-JSON 5xx to 502 upstream_error', async () => {
    const h = await makeHarness();
    const { cookies } = await signedInBrowser(h);
    const missing = await h.send('DELETE', '/auth/sessions/00000000-0000-4000-8000-000000000000', { cookies });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'not_found', message: 'Session not found' });
    h.intercept = () => new Response('<html>bad gateway</html>', { status: 503 });
    const broken = await h.send('GET', '/auth/sessions', { cookies });
    expect(broken.status).toBe(502);
    expect(broken.body).toEqual({ error: 'upstream_error' });
    h.intercept = () =>
      new Response(JSON.stringify({ error: 'rate_limited', message: 'slow down', retryAfterSeconds: 7 }), {
        status: 429,
        headers: { 'retry-after': '7' },
      });
    const limited = await h.send('GET', '/auth/sessions', { cookies });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'rate_limited', message: 'slow down', retryAfterSeconds: 7 });
    expect(limited.headers.get('retry-after')).toBe('7');
  });

  it('answers 502 upstream_unavailable when the API times out or is unreachable', async () => {
    const h = await makeHarness();
    const { cookies } = await signedInBrowser(h);
    h.intercept = () => {
      throw new DOMException('timed out', 'TimeoutError');
    };
    const res = await h.send('GET', '/auth/sessions', { cookies });
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ error: 'upstream_unavailable', message: 'Auth server unreachable' });
  });
});

describe('request bodies', () => {
  it('answers 400 for malformed JSON and 413 above 100 KB, without calling the API', async () => {
    const h = await makeHarness();
    const bad = await h.send('POST', '/auth/login', {
      rawBody: '{nope',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'invalid_request', message: 'Malformed JSON body' });
    const big = await h.send('POST', '/auth/login', {
      rawBody: JSON.stringify({ identifier: 'x'.repeat(101 * 1024) }),
    });
    expect(big.status).toBe(413);
    expect(big.body.error).toBe('payload_too_large');
    expect(h.upstream).toHaveLength(0);
  });

  it('lets unknown routes fall through to the application', async () => {
    const h = await makeHarness();
    expect((await h.send('GET', '/auth/totally-unknown')).status).toBe(404);
    expect((await h.send('POST', '/auth/totp/status')).status).toBe(405); // a mounted path, another method
    expect(h.upstream).toHaveLength(0);
  });
});

describe('origin guard (SameSite=None)', () => {
  const prod = { cookieSecure: true, cookieSameSite: 'none' as const, allowedOrigins: ['https://Admin.Example '] };

  it('refuses a cross-site POST with 403 before any refresh', async () => {
    const h = await makeHarness(prod);
    const { cookies } = await refreshOnlyBrowser(h);
    const refused: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'null' },
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of refused) {
      const res = await h.send('DELETE', '/auth/logout', { cookies, headers });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'cross_site_request_blocked' });
      expect(res.setCookies).toEqual([]);
    }
    expect(h.upstream).toHaveLength(0);
  });

  it('passes the issuer origin, allowed origins, same-origin fetches without Origin, non-browsers, GET and bearer transport', async () => {
    const h = await makeHarness(prod);
    const { cookies } = await signedInBrowser(h);
    // A present Origin outside the allowed set is refused whatever Sec-Fetch-Site says (docs/contract-changes.md).
    const ok: Record<string, string>[] = [
      { origin: 'http://localhost:3000' },
      { origin: 'https://admin.example' },
      { 'sec-fetch-site': 'same-origin' },
      {},
    ];
    for (const headers of ok) {
      const res = await h.send('POST', '/auth/webAuthn/register/start', { cookies, headers, body: {} });
      expect(res.status, JSON.stringify(headers)).not.toBe(403);
    }
    const get = await h.send('GET', '/auth/sessions', { cookies, headers: { origin: 'https://evil.example' } });
    expect(get.status).toBe(200);
    const bearer = await h.send('DELETE', '/auth/logout', {
      headers: { origin: 'https://evil.example', 'x-svc-auth-transport': 'bearer' },
    });
    expect(bearer.status).toBe(401);
  });

  // Lax cookies ride with a sibling subdomain's request, so the guard runs with Lax too.
  it('is active with SameSite=Lax as well', async () => {
    const h = await makeHarness();
    const { cookies } = await signedInBrowser(h);
    const res = await h.send('DELETE', '/auth/logout', { cookies, headers: { origin: 'https://evil.example' } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'cross_site_request_blocked' });
    expect(upstreamPaths(h)).toEqual([]);
  });
});
