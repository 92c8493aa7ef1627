/**
 * The RFC 8414 §3.1 path-inserted metadata at the root (`svcWellKnown`, `svcExpressWellKnown`):
 * `/.well-known/oauth-authorization-server/auth` and `/.well-known/openid-configuration/auth` for
 * the issuer `http://localhost:3000/auth`; any other path falls through to the application.
 */
import express from 'express';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { svcExpressAdapter, svcExpressWellKnown } from '../../../adapter/express/index.js';
import { svcAdapter, svcWellKnown } from '../../../adapter/hono/index.js';
import { closeServers, listen } from '../express/harness.js';
import { makeHarness, type Mount } from '../helpers.js';

afterAll(closeServers);

const honoRoot: Mount = async (opts) => {
  const app = new Hono();
  app.route('/', svcWellKnown(opts));
  app.route('/auth', svcAdapter(opts));
  app.notFound((c) => c.json({ error: 'not_found' }, 404));
  return { request: async (path, init) => app.request(path, init), close: async () => {} };
};

const expressRoot: Mount = async (opts) => {
  const app = express();
  app.use(svcExpressWellKnown(opts));
  app.use('/auth', svcExpressAdapter(opts));
  app.use((_req, res) => res.status(404).json({ error: 'not_found' }));
  const { base } = await listen(app);
  return { request: (path, init) => fetch(base + path, init), close: async () => {} };
};

const DOC = { issuer: 'http://localhost:3000/auth', jwks_uri: 'http://localhost:3000/auth/.well-known/jwks.json' };

describe.each([
  ['Hono svcWellKnown', honoRoot],
  ['Express svcExpressWellKnown', expressRoot],
])('%s: RFC 8414 path-inserted metadata', (_name, mount) => {
  const harness = async () => {
    const h = await makeHarness({}, {}, { mount });
    h.intercept = (call) =>
      call.path === '/oauth2/metadata'
        ? new Response(JSON.stringify(DOC), { status: 200, headers: { 'content-type': 'application/json' } })
        : undefined;
    return h;
  };

  it('serves the document at both path-inserted forms of the issuer, with CORS and its preflight', async () => {
    const h = await harness();
    for (const path of ['/.well-known/oauth-authorization-server/auth', '/.well-known/openid-configuration/auth']) {
      const res = await h.send('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.body).toEqual(DOC);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const pre = await h.driver.request(path, {
        method: 'OPTIONS',
        headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'GET' },
      });
      expect(pre.status, path).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  it('another path below the prefix falls through to the application', async () => {
    const h = await harness();
    const res = await h.send('GET', '/.well-known/oauth-authorization-server/other');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found' });
  });
});
