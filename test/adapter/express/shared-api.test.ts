/**
 * Both adapters on ONE auth API and ONE injected `fetch` (contract §5.14),
 * the same clock: answers must be byte-identical, Set-Cookie values included
 * (HS256 cookies signed over the same payload at the same instant are equal),
 * and the process-wide refresh dedup serves both frameworks with one refresh.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createUser, signIn } from '../../helpers/factories.js';
import { TEST_ISSUER } from '../../helpers/make-app.js';
import {
  APP_ORIGIN,
  COOKIE_SECRET,
  makeHarness,
  refreshOnlyBrowser,
  signedInBrowser,
  type Harness,
  type SendInit,
} from '../helpers.js';
import { closeServers, expressMount } from './harness.js';

afterEach(closeServers);

async function pair() {
  const h = await makeHarness();
  const express = await expressMount(h.opts, {
    cookieSecret: COOKIE_SECRET,
    issuer: APP_ORIGIN,
    authServerUrl: TEST_ISSUER,
    audience: TEST_ISSUER,
    fetch: h.opts.fetch!,
    now: h.opts.now!,
  });
  /** The same request through Hono, then Express; the answers as compared on the wire. */
  const both = async (method: string, path: string, init: SendInit = {}) => {
    const wire = (r: Awaited<ReturnType<Harness['send']>>) => ({
      status: r.status,
      text: r.text,
      setCookies: r.setCookies,
      type: r.headers.get('content-type'),
      cache: r.headers.get('cache-control'),
    });
    const hono = await h.send(method, path, init);
    const viaExpress = await h.send(method, path, { ...init, via: express });
    expect(wire(viaExpress), `${method} ${path}`).toEqual(wire(hono));
    return hono;
  };
  return { h, both };
}

describe('Hono and Express on the same API and fetch', () => {
  it('answer byte-identically on signed-in, guarded, bearer and malformed requests', async () => {
    const { h, both } = await pair();
    const { cookies, env } = await signedInBrowser(h, { roles: ['admin'] });
    expect((await both('GET', '/auth/users/me', { cookies })).status).toBe(200);
    expect((await both('GET', '/auth/sessions', { cookies })).status).toBe(200);
    expect((await both('GET', '/auth/admin/users?limit=1', { cookies })).status).toBe(200);
    expect((await both('GET', '/app', { cookies })).status).toBe(200);
    expect((await both('GET', '/admin', { headers: { authorization: `Bearer ${env.token}` } })).status).toBe(200);
    expect(
      (
        await both('GET', '/auth/users/me', {
          headers: { 'x-svc-auth-transport': 'bearer', authorization: `Bearer ${env.token}` },
        })
      ).status,
    ).toBe(200);
    expect(
      (await both('POST', '/auth/login', { rawBody: '{nope', headers: { 'content-type': 'application/json' } })).status,
    ).toBe(400);
    expect((await both('GET', '/auth/users/me', { cookies: { 'svc-access': 'forged' } })).setCookies).toHaveLength(1);
  });

  it('share one refresh: the Express request replays the refresh the Hono request made, with identical cookies', async () => {
    const { h, both } = await pair();
    const { cookies } = await refreshOnlyBrowser(h);
    const res = await both('GET', '/auth/sessions', { cookies });
    expect(res.setCookies.map((s) => s.split('=')[0])).toEqual(['svc-access', 'svc-refresh']);
    expect(h.upstream.filter((c) => c.path === '/refresh')).toHaveLength(1);
    const user = await createUser(h.t);
    const env = await signIn(h.t, user);
    const bearer = { headers: { 'x-svc-auth-transport': 'bearer', authorization: `Bearer ${env.refreshToken}` } };
    expect((await both('POST', '/auth/refresh', bearer)).status).toBe(200);
    expect(h.upstream.filter((c) => c.path === '/refresh')).toHaveLength(2);
  });
});
