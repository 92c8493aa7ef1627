/**
 * `svcWellKnown` / `svcExpressWellKnown`: the association files at
 * the app root, built from the real API's `native_apps` and `origins`, and
 * compared with the platforms' documented examples:
 * - Android Credential Manager's assetlinks.json (android/snippets,
 *   identity/credentialmanager/.../digitalAssetLinking/assetlinks.json);
 * - Apple's "Supporting associated domains" / `applinks.Details` (appIDs +
 *   components) and `webcredentials.apps`;
 * - WebAuthn L3 §5.11 `{"origins": [...]}`.
 */
import { Hono } from 'hono';
import express from 'express';
import { afterAll, describe, expect, it } from 'vitest';
import { svcExpressWellKnown } from '../../../adapter/express/index.js';
import { svcAdapter, svcWellKnown } from '../../../adapter/hono/index.js';
import { closeServers, listen } from '../express/harness.js';
import { makeHarness, type Mount } from '../helpers.js';
import { signedIn } from '../../helpers/admin.js';

const FINGERPRINT = Array.from({ length: 32 }, (_, i) => (i * 7).toString(16).padStart(2, '0').toUpperCase()).join(':');
const APPS = {
  android: [{ packageName: 'com.example.android', sha256CertFingerprints: [FINGERPRINT.toLowerCase()] }],
  apple: [
    { teamId: 'ABCDE12345', bundleId: 'com.example.app', applinksPaths: ['/auth/magic-link/*'] },
    { teamId: 'ABCDE12345', bundleId: 'com.example.clip' },
  ],
};
const API_ENV = {
  NATIVE_APPS: JSON.stringify(APPS),
  ORIGINS: 'http://localhost:3000,https://shop.example,android:apk-key-hash:abc',
};

const honoRoot: Mount = async (opts) => {
  const app = new Hono();
  app.route('/', svcWellKnown(opts));
  app.route('/auth', svcAdapter(opts));
  return { request: async (path, init) => app.request(path, init), close: async () => {} };
};

const expressRoot: Mount = async (opts) => {
  const app = express();
  app.use(svcExpressWellKnown(opts));
  app.use((_req, res) => res.status(404).json({ error: 'not_found' }));
  const { base } = await listen(app);
  return { request: (path, init) => fetch(base + path, init), close: async () => {} };
};

afterAll(closeServers);

describe.each([
  ['Hono svcWellKnown', honoRoot],
  ['Express svcExpressWellKnown', expressRoot],
])('%s', (_name, mount) => {
  it('serves assetlinks.json in the Digital Asset Links statement-list form', async () => {
    const h = await makeHarness({}, API_ENV, { mount });
    const res = await h.send('GET', '/.well-known/assetlinks.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.setCookies).toEqual([]);
    // Google's documented example, with our package and fingerprint in place of the placeholders.
    const documented = [
      {
        relation: ['delegate_permission/common.handle_all_urls', 'delegate_permission/common.get_login_creds'],
        target: {
          namespace: 'android_app',
          package_name: 'com.example.android',
          sha256_cert_fingerprints: ['SHA_HEX_VALUE'],
        },
      },
    ];
    documented[0]!.target.sha256_cert_fingerprints = [FINGERPRINT];
    expect(res.body).toEqual(documented);
    expect(res.body[0].target.sha256_cert_fingerprints[0]).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  });

  it('serves apple-app-site-association with webcredentials for every app and applinks for apps with paths', async () => {
    const h = await makeHarness({}, API_ENV, { mount });
    const res = await h.send('GET', '/.well-known/apple-app-site-association');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.body).toEqual({
      webcredentials: { apps: ['ABCDE12345.com.example.app', 'ABCDE12345.com.example.clip'] },
      applinks: { details: [{ appIDs: ['ABCDE12345.com.example.app'], components: [{ '/': '/auth/magic-link/*' }] }] },
    });
    // Apple's app identifier format: <Application Identifier Prefix>.<Bundle Identifier>.
    for (const id of res.body.webcredentials.apps) expect(id).toMatch(/^[A-Z0-9]{10}\.[A-Za-z0-9.-]+$/);
  });

  it('serves /.well-known/webauthn with exactly the configured web origins', async () => {
    const h = await makeHarness({}, API_ENV, { mount });
    const res = await h.send('GET', '/.well-known/webauthn');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.body).toEqual({ origins: ['http://localhost:3000', 'https://shop.example'] });
  });

  it('omits applinks and answers empty lists when no app is configured', async () => {
    const h = await makeHarness({}, {}, { mount });
    expect((await h.send('GET', '/.well-known/assetlinks.json')).body).toEqual([]);
    expect((await h.send('GET', '/.well-known/apple-app-site-association')).body).toEqual({
      webcredentials: { apps: [] },
    });
  });

  it('caches the public config for 300 s: one upstream call, then a refetch that sees an admin change', async () => {
    const h = await makeHarness({}, API_ENV, { mount });
    await h.send('GET', '/.well-known/assetlinks.json');
    await h.send('GET', '/.well-known/apple-app-site-association');
    await h.send('GET', '/.well-known/webauthn');
    expect(h.upstream.filter((c) => c.path === '/system-config/associations')).toHaveLength(1);

    const admin = await signedIn(h.t, ['admin:write']);
    const patched = await h.t.call('PATCH', '/system-config/admin', {
      token: admin.token,
      body: { native_apps: { android: [], apple: [] } },
    });
    expect(patched.status).toBe(200);
    expect((await h.send('GET', '/.well-known/assetlinks.json')).body).toHaveLength(1);
    h.t.clock.advance(300_000);
    expect((await h.send('GET', '/.well-known/assetlinks.json')).body).toEqual([]);
    expect(h.upstream.filter((c) => c.path === '/system-config/associations')).toHaveLength(2);
  });

  it('keeps serving the last good files while the API is unreachable, and answers 502 in the envelope before it ever answered', async () => {
    const cold = await makeHarness({}, API_ENV, { mount });
    cold.intercept = () => {
      throw new TypeError('fetch failed');
    };
    const first = await cold.send('GET', '/.well-known/assetlinks.json');
    expect(first.status).toBe(502);
    expect(first.body).toEqual({ error: 'upstream_unavailable', message: 'Auth server unreachable' });

    const warm = await makeHarness({}, API_ENV, { mount });
    expect((await warm.send('GET', '/.well-known/assetlinks.json')).status).toBe(200);
    warm.intercept = () => {
      throw new TypeError('fetch failed');
    };
    warm.t.clock.advance(301_000);
    const stale = await warm.send('GET', '/.well-known/assetlinks.json');
    expect(stale.status).toBe(200);
    expect(stale.body).toHaveLength(1);
  });

  it('refuses an upstream answer of the wrong shape instead of publishing it', async () => {
    const h = await makeHarness({}, API_ENV, { mount });
    h.intercept = (call) =>
      call.path === '/system-config/associations' ? Response.json({ android: 'everything' }) : undefined;
    const res = await h.send('GET', '/.well-known/assetlinks.json');
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ error: 'upstream_error', message: 'Unexpected response from auth server' });
  });

  it('answers only GET on the three paths and nothing else at the root', async () => {
    const h = await makeHarness({}, API_ENV, { mount });
    // Another method on one of its paths: 405 with Allow, the same on both adapters.
    const post = await h.send('POST', '/.well-known/assetlinks.json', { body: {} });
    expect([post.status, post.headers.get('allow'), post.body]).toEqual([
      405,
      'GET, HEAD',
      { error: 'method_not_allowed', message: 'Method not allowed' },
    ]);
    expect((await h.send('GET', '/.well-known/jwks.json')).status).toBe(404);
  });
});
