/**
 * `svcTotpBridge` (contract §5.12): no access token → 401 `{error:"unauthorized", message}`
 * with no upstream call, in every form (no cookie, only a refresh cookie — the
 * bridge never refreshes —, an invalid cookie, bearer without Authorization);
 * the origin guard applies; a valid cookie or bearer reaches the raw route.
 */
import { describe, expect, it } from 'vitest';
import { makeHarness, refreshOnlyBrowser, signedInBrowser } from '../helpers.js';

/** Every adapter 401 names the missing credential (docs/contract-changes.md). */
const UNAUTHORIZED = (path: string, headers: Record<string, string>) => ({
  error: 'unauthorized',
  message: headers['x-svc-auth-transport']
    ? 'Missing bearer token'
    : path.endsWith('/verify-login')
      ? 'Pre-auth session required'
      : 'Access session required',
});

describe('svcTotpBridge', () => {
  it('answers 401 without any upstream call when there is no usable access token, and never refreshes', async () => {
    const h = await makeHarness();
    const { cookies: refreshOnly } = await refreshOnlyBrowser(h);
    const { cookies: full } = await signedInBrowser(h);
    const cases: [string, string, Record<string, string>, Record<string, string>][] = [
      ['GET', '/auth/totp/status', {}, {}],
      ['GET', '/auth/totp/status', refreshOnly, {}],
      ['POST', '/auth/totp/verify-mfa', refreshOnly, {}],
      ['POST', '/auth/totp/enroll/start', { 'svc-access': `${full['svc-access']}x` }, {}],
      ['POST', '/auth/totp/enroll/start', { 'svc-access': full['svc-refresh']! }, {}], // kind check
      ['POST', '/auth/totp/verify-login', full, {}], // needs the pre-auth cookie, not the access cookie
      ['GET', '/auth/totp/status', full, { 'x-svc-auth-transport': 'bearer' }], // bearer never reads cookies
    ];
    for (const [method, path, cookies, headers] of cases) {
      const res = await h.send(method, path, {
        cookies,
        headers,
        body: method === 'POST' ? { code: '123456' } : undefined,
      });
      expect(res.status, `${method} ${path} ${Object.keys(cookies)}`).toBe(401);
      expect(res.body).toEqual(UNAUTHORIZED(path, headers));
      expect(res.setCookies).toEqual([]);
    }
    expect(h.upstream).toEqual([]);
  });

  it('forwards the access cookie’s inner token, or the client bearer, to the raw TOTP route', async () => {
    const h = await makeHarness();
    const { env, cookies } = await signedInBrowser(h);
    const viaCookie = await h.send('GET', '/auth/totp/status', { cookies });
    expect(viaCookie.status).toBe(200);
    expect(viaCookie.body).toEqual({ enabled: false, verifiedAt: null, lastUsedAt: null });
    const viaBearer = await h.send('GET', '/auth/totp/status', {
      headers: { 'x-svc-auth-transport': 'bearer', authorization: `Bearer ${env.token}` },
    });
    expect(viaBearer.status).toBe(200);
    expect(h.upstream.map((c) => [c.path, c.headers.get('authorization')])).toEqual([
      ['/totp/status', `Bearer ${env.token}`],
      ['/totp/status', `Bearer ${env.token}`],
    ]);
  });

  it('applies the origin guard with SameSite=None', async () => {
    const h = await makeHarness({ cookieSecure: true, cookieSameSite: 'none' });
    const { cookies } = await signedInBrowser(h);
    const res = await h.send('POST', '/auth/totp/enroll/start', {
      cookies,
      headers: { origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'cross_site_request_blocked' });
    expect(h.upstream).toEqual([]);
  });
});
