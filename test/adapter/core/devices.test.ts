/**
 * The devices page, adapter side (docs/devices.md): `GET /auth/sessions`
 * adds `device` (browser, OS, type) parsed with bowser from each session's
 * User-Agent, and the adapter forwards the user's place to the API as
 * `x-svc-client-geo`: from the headers named in `clientPlaceHeader` (Hono and
 * Express), or Cloudflare's `request.cf` (Hono on Workers). An unconfigured
 * header is never forwarded.
 */
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { describeDevice, deviceLabel } from '../../../adapter/core/device.js';
import { resolvePlaceHeaders } from '../../../adapter/core/place.js';
import { svcAdapter } from '../../../adapter/hono/index.js';
import { makeExpressHarness } from '../express/harness.js';
import { makeHarness, refreshOnlyBrowser, type Harness } from '../helpers.js';

const UA = {
  chromeWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  safariIos:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1',
  firefoxLinux: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  chromeMac:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  iPad: 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  app: 'AcmeNotes/2.3.1 (iPhone; iOS 17.1; Scale/3.00)',
};

describe('describeDevice (bowser)', () => {
  it.each([
    [UA.chromeWindows, { browser: 'Chrome', browserVersion: '131', os: 'Windows', osVersion: '10', type: 'desktop' }],
    [UA.safariIos, { browser: 'Safari', browserVersion: '17', os: 'iOS', osVersion: '17', type: 'mobile' }],
    [UA.firefoxLinux, { browser: 'Firefox', browserVersion: '133', os: 'Linux', osVersion: null, type: 'desktop' }],
    // Browsers freeze macOS at 10.15.7: the number would mislead.
    [UA.chromeMac, { browser: 'Chrome', browserVersion: '131', os: 'macOS', osVersion: null, type: 'desktop' }],
    [UA.iPad, { browser: 'Safari', browserVersion: '16', os: 'iOS', osVersion: '16', type: 'tablet' }],
    [UA.app, { browser: 'AcmeNotes', browserVersion: '2', os: 'iOS', osVersion: null, type: 'mobile' }],
    ['curl/8.4.0', { browser: null, browserVersion: null, os: null, osVersion: null, type: null }],
  ])('%s', (ua, expected) => {
    expect(describeDevice(ua)).toEqual(expected);
  });

  it('is null for an empty, blank or missing User-Agent and never throws', () => {
    for (const ua of ['', '   ', null, undefined, 42, {}]) expect(describeDevice(ua)).toBeNull();
    expect(() => describeDevice('x'.repeat(100_000))).not.toThrow();
  });

  it('deviceLabel words it for the demo and the console', () => {
    expect(deviceLabel(describeDevice(UA.chromeMac))).toBe('Chrome 131 on macOS');
    expect(deviceLabel(describeDevice(UA.safariIos))).toBe('Safari 17 on iOS 17');
    expect(deviceLabel(describeDevice('curl/8.4.0'))).toBe('Unknown device');
    expect(deviceLabel(null)).toBe('Unknown device');
  });
});

describe('clientPlaceHeader option', () => {
  it('takes header names only, lower-cased; refuses x-svc-* and anything else', () => {
    expect(resolvePlaceHeaders(undefined)).toEqual([]);
    expect(resolvePlaceHeaders('CF-IPCountry')).toEqual(['cf-ipcountry']);
    expect(resolvePlaceHeaders(['x-vercel-ip-city', 'x-vercel-ip-country'])).toHaveLength(2);
    for (const bad of ['x-svc-client-geo', 'authorization', 'Cookie', 'a b', 'a:b', ''])
      expect(() => resolvePlaceHeaders(bad)).toThrow(/clientPlaceHeader/);
  });
});

const PLACE = { clientPlaceHeader: ['x-vercel-ip-city', 'x-vercel-ip-country'] };
const EDGE = { 'x-vercel-ip-city': 'S%C3%A3o%20Paulo', 'x-vercel-ip-country': 'BR' };

describe.each([
  ['Hono', makeHarness],
  ['Express', makeExpressHarness],
] as const)('%s adapter', (_name, make) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.driver.close();
    h = undefined;
  });

  it('GET /auth/sessions (cookie transport): device parsed, place from the configured headers via the refresh', async () => {
    h = await make(PLACE);
    const { cookies, user } = await refreshOnlyBrowser(h);
    // The access cookie is missing: the adapter refreshes first, so the new session row is this request's.
    const res = await h.send('GET', '/auth/sessions', { cookies, headers: { 'user-agent': UA.firefoxLinux, ...EDGE } });
    expect(res.status).toBe(200);
    const refresh = h.upstream.find((c) => c.path === '/refresh')!;
    expect(refresh.headers.get('x-svc-client-geo')).toBe('São Paulo, BR');
    expect(res.body.sessions).toHaveLength(1);
    expect(res.body.sessions[0]).toMatchObject({
      current: true,
      place: 'São Paulo, BR',
      authMethod: 'passkey',
      userAgent: UA.firefoxLinux,
      device: { browser: 'Firefox', browserVersion: '133', os: 'Linux', type: 'desktop' },
    });
    expect(user.id).toBeTruthy();
  });

  it('forwards no place header the operator did not configure', async () => {
    h = await make();
    const { cookies } = await refreshOnlyBrowser(h);
    const res = await h.send('GET', '/auth/sessions', {
      cookies,
      headers: { ...EDGE, 'cf-ipcountry': 'FR', 'x-svc-client-geo': 'Nowhere' },
    });
    expect(res.status).toBe(200);
    for (const call of h.upstream) expect(call.headers.get('x-svc-client-geo')).toBeNull();
    expect(res.body.sessions[0].place).toBeNull();
  });

  it('bearer transport gets device too; DELETE /auth/sessions keeps the current session', async () => {
    h = await make();
    const { env } = await refreshOnlyBrowser(h);
    const bearer = { 'x-svc-auth-transport': 'bearer', authorization: `Bearer ${env.token}` };
    const other = await refreshOnlyBrowser(h);
    expect(other).toBeTruthy();
    const list = await h.send('GET', '/auth/sessions', { headers: bearer });
    expect(list.status).toBe(200);
    // signIn (test helper) records the UA `vitest`: bowser reads it as an unnamed client.
    expect(list.body.sessions[0]).toHaveProperty('device');
    const revoked = await h.send('DELETE', '/auth/sessions', { headers: bearer });
    expect(revoked.body).toEqual({ message: 'Success', revokedSessions: 0 });
  });
});

describe('Hono on Workers', () => {
  it("forwards the user's request.cf as x-svc-client-geo (the API's own cf would be the adapter's subrequest)", async () => {
    const h = await makeHarness();
    const app = new Hono().route('/auth', svcAdapter(h.opts));
    const { cookies } = await refreshOnlyBrowser(h);
    const req = new Request('http://app.test/auth/sessions', {
      headers: {
        cookie: Object.entries(cookies)
          .map(([k, v]) => `${k}=${v}`)
          .join('; '),
        'user-agent': UA.safariIos,
      },
    });
    Object.defineProperty(req, 'cf', { value: { city: 'Paris', country: 'FR', region: 'Île-de-France' } });
    const res = await app.request(req);
    const body = (await res.json()) as { sessions: Record<string, unknown>[] };
    expect(res.status).toBe(200);
    expect(h.upstream.find((c) => c.path === '/refresh')!.headers.get('x-svc-client-geo')).toBe('Paris, FR');
    expect(body.sessions[0]).toMatchObject({ place: 'Paris, FR', device: { browser: 'Safari', os: 'iOS' } });
  });
});
