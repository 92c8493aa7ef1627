/**
 * A malformed percent-escape in a path parameter (`/auth/sessions/%E0%A4%A`)
 * makes Express's router throw a URIError while matching, before any adapter
 * handler runs. The adapter answers it like its other request failures (contract
 * §5.13: 400 `invalid_request`, JSON), never with Express's HTML error page,
 * which in development also carried the stack trace.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { signedInBrowser, upstreamPaths } from '../helpers.js';
import { closeServers, makeExpressHarness } from './harness.js';

afterEach(closeServers);

describe('malformed path parameters (Express)', () => {
  it.each([
    ['DELETE', '/auth/sessions/%E0%A4%A'],
    ['PATCH', '/auth/organizations/%zz/members/x'],
    ['GET', '/auth/admin/users/%'],
    ['POST', '/auth/magic-link/verify/%E0%A4%A'],
  ])('%s %s answers 400 invalid_request as JSON without an upstream call', async (method, path) => {
    const h = await makeExpressHarness();
    const { cookies } = await signedInBrowser(h);
    const res = await h.send(method, path, { cookies, ...(method === 'GET' ? {} : { body: {} }) });
    expect([res.status, res.headers.get('content-type'), res.body]).toEqual([
      400,
      'application/json; charset=utf-8',
      { error: 'invalid_request', message: 'Malformed path parameter' },
    ]);
    expect(upstreamPaths(h)).toEqual([]);
  });

  it('leaves errors of the application alone', async () => {
    const h = await makeExpressHarness();
    const res = await h.send('GET', '/elsewhere/%E0%A4%A');
    expect([res.status, res.body]).toEqual([404, { error: 'not_found' }]);
  });
});
