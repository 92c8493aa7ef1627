/**
 * The rows of the cookie set/clear matrix (contract §5.5) and of §5.7 that the
 * other adapter suites do not already pin: `/auth/refresh` in cookie
 * transport, organization switch, account deletion, logout everywhere and a
 * logout the API could not perform, and a missing pre-auth cookie.
 */
import { describe, expect, it } from 'vitest';
import { makeHarness, refreshOnlyBrowser, signedInBrowser, upstreamPaths } from '../helpers.js';

const names = (setCookies: string[]) => setCookies.map((s) => s.split(';')[0]!);
const CLEAR_ALL = ['svc-access=', 'svc-refresh=', 'svc-ephemeral='];

describe('POST /auth/refresh (cookie transport)', () => {
  it('answers 401 Refresh token required without a valid refresh cookie and calls nothing', async () => {
    const h = await makeHarness();
    const { cookies } = await signedInBrowser(h);
    const variants: Record<string, string>[] = [
      {},
      { 'svc-refresh': 'garbage' },
      { 'svc-refresh': cookies['svc-access']! },
    ];
    for (const c of variants) {
      const res = await h.send('POST', '/auth/refresh', { cookies: c });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'unauthorized', message: 'Refresh token required' });
    }
    expect(h.upstream).toEqual([]);
  });

  it('on an upstream 401 clears A, R and E and forwards the API body', async () => {
    const h = await makeHarness();
    const { cookies } = await refreshOnlyBrowser(h);
    expect((await h.send('POST', '/auth/refresh', { cookies })).status).toBe(200);
    h.t.clock.advance(6_000); // past the 5 s replay window: the old token is now a reuse
    const reused = await h.send('POST', '/auth/refresh', { cookies: { ...cookies, 'svc-ephemeral': 'x' } });
    expect(reused.status).toBe(401);
    expect(reused.body.error).toBe('refresh_token_reused');
    expect(names(reused.setCookies)).toEqual(CLEAR_ALL);
  });
});

describe('organization switch (cookie transport)', () => {
  it('sets only the access cookie, with the new organization, and strips the token from the body', async () => {
    const h = await makeHarness();
    const { cookies } = await signedInBrowser(h);
    const org = await h.send('POST', '/auth/organizations', { cookies, body: { name: 'Cookie Org' } });
    expect(org.status).toBe(201);
    const id = org.body.organization.id;
    const res = await h.send('POST', `/auth/organizations/${id}/switch`, { cookies });
    expect(res.status).toBe(200);
    expect(res.text).not.toMatch(/"token"\s*:/);
    expect(res.body.organizationId).toBe(id);
    expect(names(res.setCookies).map((n) => n.split('=')[0])).toEqual(['svc-access']);
    const me = await h.send('GET', '/auth/users/me', { cookies: res.cookies });
    expect(me.body.activeOrganization.id).toBe(id);
  });
});

describe('ending sessions', () => {
  it('DELETE /auth/logout/all answers 204, clears A, R and E, and ends every session of the user', async () => {
    const h = await makeHarness();
    const first = await signedInBrowser(h);
    const res = await h.send('DELETE', '/auth/logout/all', { cookies: first.cookies });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(names(res.setCookies)).toEqual(CLEAR_ALL);
    expect(
      (await h.send('POST', '/auth/refresh', { cookies: { 'svc-refresh': first.cookies['svc-refresh']! } })).status,
    ).toBe(401);
  });

  it('DELETE /auth/users/delete clears A, R and E on 200, and the account is gone', async () => {
    const h = await makeHarness();
    const { cookies } = await signedInBrowser(h);
    const res = await h.send('DELETE', '/auth/users/delete', { cookies });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Success' });
    expect(names(res.setCookies)).toEqual(CLEAR_ALL);
    expect((await h.send('GET', '/auth/users/me', { cookies })).status).toBe(401);
  });

  it('a logout the API answers with 5xx is forwarded and clears nothing; 401 still clears and answers 204', async () => {
    const h = await makeHarness();
    const { cookies } = await signedInBrowser(h);
    h.intercept = (call) =>
      call.path === '/logout'
        ? new Response(JSON.stringify({ error: 'internal_error', message: 'boom' }), { status: 500 })
        : undefined;
    const broken = await h.send('DELETE', '/auth/logout', { cookies });
    expect(broken.status).toBe(500);
    expect(broken.body).toEqual({ error: 'internal_error', message: 'boom' });
    expect(broken.setCookies).toEqual([]);
    h.intercept = (call) =>
      call.path === '/logout'
        ? new Response(JSON.stringify({ error: 'unauthorized', message: 'x' }), { status: 401 })
        : undefined;
    const gone = await h.send('DELETE', '/auth/logout', { cookies });
    expect(gone.status).toBe(204);
    expect(names(gone.setCookies)).toEqual(CLEAR_ALL);
    expect(upstreamPaths(h)).toEqual(['DELETE /logout', 'DELETE /logout']);
  });
});

describe('pre-auth routes', () => {
  it('answer 401 Pre-auth session required without the cookie, and clear an invalid one', async () => {
    const h = await makeHarness();
    const none = await h.send('POST', '/auth/otp/verify-login-email-otp', { body: { verificationToken: 'ABCDEF' } });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ error: 'unauthorized', message: 'Pre-auth session required' });
    expect(none.setCookies).toEqual([]);
    const bad = await h.send('POST', '/auth/webAuthn/login/start', { cookies: { 'svc-ephemeral': 'a.b.c' }, body: {} });
    expect(bad.status).toBe(401);
    expect(names(bad.setCookies)).toEqual(['svc-ephemeral=']);
    expect(h.upstream).toEqual([]);
  });
});
