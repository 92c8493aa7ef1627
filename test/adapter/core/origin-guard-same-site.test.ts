/**
 * With `SameSite=Lax` (the default outside production) or
 * `Strict`, the origin guard used to be off. A sibling subdomain
 * (`evil.example.com` against `app.example.com`) is the same *site*, so the
 * browser sends Lax and Strict cookies with its POSTs: it created an
 * organization and signed the user out. The guard now runs in every SameSite
 * mode, on the adapter and the TOTP bridge, on both adapters.
 */
import { describe, expect, it } from 'vitest';
import { expressMount } from '../express/harness.js';
import { honoMount, makeHarness, signedInBrowser, upstreamPaths, type Mount } from '../helpers.js';

const APP = 'https://app.example.com';
const SIBLING = { origin: 'https://evil.example.com', 'sec-fetch-site': 'same-site' };

describe.each([
  ['hono', honoMount],
  ['express', expressMount],
] as [string, Mount][])('origin guard in every SameSite mode on the %s adapter', (_name, mount) => {
  it.each([
    ['lax (default)', {}],
    ['lax', { cookieSameSite: 'lax' as const }],
    ['strict', { cookieSameSite: 'strict' as const }],
  ])('SameSite=%s: a sibling subdomain cannot create an organization, sign out or enrol TOTP', async (_mode, over) => {
    // The app is served at https://app.example.com (an allowed origin); the cookies are the harness's own.
    const h = await makeHarness({ allowedOrigins: [APP], ...over }, {}, { mount });
    const { cookies } = await signedInBrowser(h);
    const before = upstreamPaths(h).length;
    const attempts = [
      await h.send('POST', '/auth/organizations', { cookies, headers: SIBLING, body: { name: 'Evil Corp' } }),
      await h.send('DELETE', '/auth/logout', { cookies, headers: SIBLING }),
      await h.send('DELETE', '/auth/logout', { cookies, headers: { origin: 'https://evil.example.com' } }),
      await h.send('POST', '/auth/totp/enroll/start', { cookies, headers: SIBLING }),
      await h.send('POST', '/auth/organizations', {
        cookies,
        headers: { 'sec-fetch-site': 'same-site' },
        body: { name: 'Evil Corp' },
      }),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'cross_site_request_blocked' });
      expect(res.setCookies).toEqual([]);
    }
    expect(upstreamPaths(h).slice(before)).toEqual([]);

    // The app's own pages still work: same Origin, or a same-origin fetch without Origin.
    const created = await h.send('POST', '/auth/organizations', {
      cookies,
      headers: { origin: APP, 'sec-fetch-site': 'same-origin' },
      body: { name: 'Acme' },
    });
    expect(created.status).toBe(201);
    const out = await h.send('DELETE', '/auth/logout', { cookies, headers: { 'sec-fetch-site': 'same-origin' } });
    expect(out.status).toBe(204);
  });
});
