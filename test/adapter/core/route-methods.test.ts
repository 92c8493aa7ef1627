/**
 * A wrong method on a mounted path (`GET /auth/login`,
 * `PUT /auth/refresh`) answers 405 `method_not_allowed` with an `Allow` header
 * and the envelope, instead of falling through to the host's 404. Driven by the
 * one route table, so every path of `ROUTES` (at `/auth`) and of
 * `TOTP_BRIDGE_ROUTES` (at `/auth/totp`) is walked here with every method it
 * does not have, on both adapters. `OPTIONS` and paths outside the table still
 * fall through to the application (its CORS preflight, its own routes).
 */
import { describe, expect, it } from 'vitest';
import { ROUTES, TOTP_BRIDGE_ROUTES } from '../../../common/route-table.js';
import { expressMount } from '../express/harness.js';
import { honoMount, makeHarness, refreshOnlyBrowser, upstreamPaths, type Mount } from '../helpers.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const fill = (path: string) => path.replace(/:[A-Za-z]+/g, 'x1');

/**
 * Written independently of the adapter: the methods of every table pattern matching `url`, plus HEAD wherever GET is.
 */
function allowFor(table: readonly { method: string; path: string }[], url: string): Set<string> {
  const segs = url.split('/');
  const allow = new Set<string>();
  for (const r of table) {
    const p = r.path.split('/');
    if (p.length === segs.length && p.every((s, i) => s.startsWith(':') || s === segs[i])) allow.add(r.method);
  }
  if (allow.has('GET')) allow.add('HEAD');
  return allow;
}

const TABLES = [
  ['adapter', '/auth', ROUTES],
  ['TOTP bridge', '/auth/totp', TOTP_BRIDGE_ROUTES],
] as const;

describe.each([
  ['hono', honoMount],
  ['express', expressMount],
] as [string, Mount][])('wrong methods on the %s adapter', (_name, mount) => {
  it('answers 405 method_not_allowed with Allow for every table path and every method it lacks, before any upstream call', async () => {
    const h = await makeHarness({}, {}, { mount });
    const { cookies } = await refreshOnlyBrowser(h);
    const problems: string[] = [];
    let checked = 0;
    for (const [, mountPath, table] of TABLES) {
      for (const url of new Set(table.map((r) => fill(r.path)))) {
        const allow = allowFor(table, url);
        for (const method of METHODS.filter((m) => !allow.has(m))) {
          checked++;
          const res = await h.send(method, `${mountPath}${url}`, {
            cookies,
            headers: { origin: 'https://evil.example' },
          });
          const label = `${method} ${mountPath}${url}`;
          const got = new Set(
            (res.headers.get('allow') ?? '')
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
          );
          if (res.status !== 405) problems.push(`${label}: status ${res.status}`);
          else if ([...allow].sort().join() !== [...got].sort().join())
            problems.push(`${label}: Allow ${[...got]} want ${[...allow]}`);
          else if (
            method !== 'HEAD' &&
            JSON.stringify(res.body) !== JSON.stringify({ error: 'method_not_allowed', message: 'Method not allowed' })
          )
            problems.push(`${label}: body ${res.text}`);
          else if (res.setCookies.length) problems.push(`${label}: set-cookie`);
          else if (res.headers.get('cache-control') !== 'no-store')
            problems.push(`${label}: cache-control ${res.headers.get('cache-control')}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(150);
    expect(upstreamPaths(h)).toEqual([]);
  }, 120_000);

  it('spot checks: GET /auth/login, PUT /auth/refresh, GET /auth/logout, POST /auth/totp/status', async () => {
    const h = await makeHarness({}, {}, { mount });
    for (const [method, path, allow] of [
      ['GET', '/auth/login', 'POST'],
      ['PUT', '/auth/refresh', 'POST'],
      ['GET', '/auth/logout', 'DELETE'],
      ['POST', '/auth/totp/status', 'GET, HEAD'],
    ] as const) {
      const res = await h.send(method, path);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
      expect(res.body).toEqual({ error: 'method_not_allowed', message: 'Method not allowed' });
    }
    expect(upstreamPaths(h)).toEqual([]);
  });

  it('leaves OPTIONS, unknown paths and a GET route’s HEAD as they were', async () => {
    const h = await makeHarness({}, {}, { mount });
    // OPTIONS falls through to the application (the harness app answers its own
    // 404), so the app's CORS preflight still runs.
    for (const path of ['/auth/login', '/auth/users/me', '/auth/totp/status']) {
      const res = await h.send('OPTIONS', path, {
        headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' },
      });
      expect([res.status, res.body], path).toEqual([404, { error: 'not_found' }]);
    }
    for (const [method, path] of [
      ['GET', '/auth/totally-unknown'],
      ['PUT', '/auth/users/me/extra'],
      ['DELETE', '/auth'],
    ] as const) {
      expect([(await h.send(method, path)).status, method, path]).toEqual([404, method, path]);
    }
    // HEAD of a GET route is answered by that route (no 405).
    expect((await h.send('HEAD', '/auth/system-config/public')).status).toBe(200);
  });
});
