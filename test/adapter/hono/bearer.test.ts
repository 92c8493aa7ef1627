import { describe, expect, it } from 'vitest';
import { makeHarness, refreshOnlyBrowser, upstreamPaths } from '../helpers.js';
import { createUser, signIn } from '../../helpers/factories.js';

const BEARER = { 'x-svc-auth-transport': 'bearer' };

describe('svcAdapter bearer transport', () => {
  it('POST /auth/refresh rotates, returns the whole envelope and sets no cookie; a replay is refresh_token_reused', async () => {
    const h = await makeHarness();
    const user = await createUser(h.t);
    const env = await signIn(h.t, user);
    const res = await h.send('POST', '/auth/refresh', {
      headers: { ...BEARER, authorization: `Bearer ${env.refreshToken}` },
    });
    expect(res.status).toBe(200);
    expect(res.setCookies).toEqual([]);
    expect(res.body).toMatchObject({ message: 'Success', sub: user.id });
    expect(typeof res.body.token).toBe('string');
    expect(res.body.refreshToken).toMatch(/^[\w-]{43}$/);
    expect(res.body.refreshToken).not.toBe(env.refreshToken);
    h.t.clock.advance(6_000); // past the 5 s dedup replay window
    const replay = await h.send('POST', '/auth/refresh', {
      headers: { ...BEARER, authorization: `Bearer ${env.refreshToken}` },
    });
    expect(replay.status).toBe(401);
    expect(replay.body.error).toBe('refresh_token_reused');
    expect(replay.setCookies).toEqual([]);
  });

  it('selects bearer only by the transport header (first value, trimmed, case-insensitive)', async () => {
    const h = await makeHarness();
    const user = await createUser(h.t);
    const env = await signIn(h.t, user);
    const res = await h.send('GET', '/auth/users/me', {
      headers: { 'x-svc-auth-transport': ' BEARER , cookie', authorization: `Bearer ${env.token}` },
    });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(user.id);
    // Authorization without the header is cookie transport: no cookie → 401, nothing forwarded
    const cookieMode = await h.send('GET', '/auth/users/me', { headers: { authorization: `Bearer ${env.token}` } });
    expect(cookieMode.status).toBe(401);
    expect(upstreamPaths(h)).toEqual(['GET /users/me']);
  });

  it('answers 401 without an upstream call when Authorization is missing', async () => {
    const h = await makeHarness();
    const res = await h.send('GET', '/auth/sessions', { headers: BEARER });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
    const refresh = await h.send('POST', '/auth/refresh', { headers: BEARER });
    expect(refresh.status).toBe(401);
    expect(refresh.body).toEqual({ error: 'unauthorized', message: 'Refresh token required' });
    expect(h.upstream).toHaveLength(0);
  });

  it('never reads cookies in bearer transport', async () => {
    const h = await makeHarness();
    const { cookies } = await refreshOnlyBrowser(h);
    const res = await h.send('GET', '/auth/sessions', { cookies, headers: BEARER });
    expect(res.status).toBe(401);
    expect(h.upstream).toHaveLength(0);
  });

  it('DELETE /auth/logout answers 204 with the access bearer', async () => {
    const h = await makeHarness();
    const env = await signIn(h.t, await createUser(h.t));
    const res = await h.send('DELETE', '/auth/logout', {
      headers: { ...BEARER, authorization: `Bearer ${env.token}` },
    });
    expect(res.status).toBe(204);
    expect(res.setCookies).toEqual([]);
  });
});

describe('upstream headers', () => {
  it('sends the proxy service token, client IP and UA, and never the browser cookies or transport header', async () => {
    const h = await makeHarness();
    const { cookies } = await refreshOnlyBrowser(h);
    const res = await h.send('GET', '/auth/sessions?limit=5&x=1&x=2', {
      cookies,
      headers: { 'x-forwarded-for': '10.9.9.9', 'user-agent': '  Browser/1.0  ' },
    });
    const call = h.upstream.find((c) => c.path.startsWith('/sessions'))!;
    expect(call.path).toBe('/sessions?limit=5&x=1&x=2');
    expect(call.headers.get('x-svc-service-token')).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(call.headers.get('x-svc-client-ip')).toBe('198.51.100.23');
    expect(call.headers.get('x-svc-client-user-agent')).toBe('Browser/1.0');
    expect(call.headers.get('authorization')).toMatch(/^Bearer ey/);
    expect(call.headers.get('cookie')).toBeNull();
    expect(call.headers.get('x-forwarded-for')).toBeNull();
    expect(call.headers.get('x-svc-auth-transport')).toBeNull();
    expect(call.headers.get('x-svc-auth-delivery-mode')).toBeNull();
    // the API honoured the forwarded client context: the rotated session row carries it
    const current = res.body.sessions.find((s: { current: boolean }) => s.current);
    expect(current).toMatchObject({ ipAddress: '198.51.100.23', userAgent: 'Browser/1.0' });
  });
});
