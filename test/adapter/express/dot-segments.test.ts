/**
 * A path parameter is forwarded as exactly one segment (contract §5.2). Express
 * hands the router `%2e%2e` decoded as `..`, and `encodeURIComponent` leaves dots
 * alone, so without a guard `PATCH /auth/organizations/x/members/%2e%2e` reached
 * the API as `PATCH /organizations/x/` — another route than the one called.
 * A dot segment is refused with 400 `invalid_request` and no upstream call.
 * (Clients that follow the URL standard normalise such paths before sending; raw
 * HTTP clients do not, hence the raw `node:http` requests here.)
 */
import { request } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { svcExpressAdapter } from '../../../adapter/express/index.js';
import { runRoute } from '../../../adapter/core/handlers/index.js';
import { createAdapterCore } from '../../../adapter/core/core.js';
import { ROUTES } from '../../../common/route-table.js';
import { signedInBrowser, upstreamPaths } from '../helpers.js';
import { closeServers, listen, makeExpressHarness } from './harness.js';

afterEach(closeServers);

/** Sends `path` byte for byte (no URL normalisation). */
function rawRequest(base: string, method: string, path: string, headers: Record<string, string>, body?: string) {
  const { hostname, port } = new URL(base);
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const req = request({ host: hostname, port, path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('dot-segment path parameters', () => {
  it.each([
    ['PATCH', '/auth/organizations/x/members/%2e%2e', '{"role":"admin"}'],
    ['DELETE', '/auth/sessions/..', undefined],
    ['DELETE', '/auth/sessions/%2E', undefined],
    ['GET', '/auth/organizations/%2e%2e/members', undefined],
  ])('%s %s is refused without an upstream call', async (method, path, body) => {
    const h = await makeExpressHarness();
    const { cookies } = await signedInBrowser(h);
    const app = express();
    app.use('/auth', svcExpressAdapter(h.opts));
    const { base } = await listen(app);
    const cookie = Object.entries(cookies)
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
    const res = await rawRequest(
      base,
      method,
      path,
      { cookie, ...(body ? { 'content-type': 'application/json' } : {}) },
      body,
    );
    expect(res).toEqual({ status: 400, body: { error: 'invalid_request', message: 'Invalid path parameter' } });
    expect(upstreamPaths(h)).toEqual([]);
  });

  it('the core refuses a dot-segment parameter for every parameterised route, in both transports', async () => {
    const h = await makeExpressHarness();
    const core = createAdapterCore(h.opts, 'svc-express-adapter');
    const withParams = ROUTES.filter((r) => r.path.includes(':'));
    expect(withParams.length).toBeGreaterThan(5);
    for (const route of withParams) {
      const names = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
      for (const dots of ['.', '..']) {
        const params = Object.fromEntries(names.map((n, i) => [n, i === names.length - 1 ? dots : 'x']));
        for (const transport of ['cookie', 'bearer'] as const) {
          const res = await runRoute(core, route, {
            transport,
            token: 't',
            authorization: 'Bearer t',
            credentialSub: null,
            params,
            query: {},
            body: undefined,
            client: {},
          });
          expect([route.method, route.path, res.status], `${transport} ${dots}`).toEqual([
            route.method,
            route.path,
            400,
          ]);
        }
      }
    }
    expect(upstreamPaths(h)).toEqual([]);
  });
});
