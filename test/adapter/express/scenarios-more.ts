/**
 * Parity scenarios beyond the core list: the TOTP bridge with the MFA step,
 * organizations (switch re-sets the access cookie) and account deletion,
 * upstream failures, and every route of the table in both transports.
 */
import { expect } from 'vitest';
import { ROUTES, TOTP_BRIDGE_ROUTES } from '../../../common/route-table.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { codeAt, STEP_ALIGNED_START_MS } from '../../helpers/totp.js';
import { settle, signedInBrowser } from '../helpers.js';
import type { Run, Scenario } from './parity.js';

const BEARER = { 'x-svc-auth-transport': 'bearer' };

/** Every mounted route with `:param`s filled; the ones that end the session go last. */
const ALL_ROUTES = [
  ...ROUTES.map((r) => ({ ...r, path: `/auth${r.path}` })),
  ...TOTP_BRIDGE_ROUTES.map((r) => ({ ...r, path: `/auth/totp${r.path}` })),
]
  .map((r) => ({
    method: r.method,
    path: r.path.replace(/:(\w+)/g, (_m, name: string) => `missing-${name}`),
    last: /logout|users\/delete/.test(r.path),
  }))
  .sort((a, b) => Number(a.last) - Number(b.last));

async function everyRoute(
  r: Run,
  init: (cookies: Record<string, string>) => { cookies?: Record<string, string>; headers?: Record<string, string> },
) {
  r.h.t.clock.advance(1); // lists are ordered by creation time: no same-millisecond ties broken by random ids
  const { cookies: start } = await signedInBrowser(r.h, { email: 'every.route@example.com', roles: ['admin'] });
  let cookies = start;
  const statuses = new Set<number>();
  for (const route of ALL_ROUTES) {
    r.h.t.clock.advance(1); // events too
    const res = await r.send(route.method, route.path, {
      ...init(cookies),
      ...(route.method === 'GET' ? {} : { body: {} }),
    });
    statuses.add(res.status);
    cookies = { ...cookies, ...res.cookies };
  }
  // The walk reached the API with both outcomes, not one blanket refusal.
  expect(statuses.has(200)).toBe(true);
  expect([...statuses].some((s) => s >= 400 && s !== 401)).toBe(true);
}

export const MORE_SCENARIOS: Scenario[] = [
  {
    name: 'TOTP bridge: enrol, MFA step at login, verify-login, verify-mfa, status, disable',
    apiEnv: { DISABLE_AUTH_RATE_LIMITS: 'true' },
    clockStartMs: STEP_ALIGNED_START_MS,
    async run(r) {
      const { cookies } = await signedInBrowser(r.h, { email: 'totp.user@example.com' });
      const start = await r.send('POST', '/auth/totp/enroll/start', { cookies });
      expect(start.status).toBe(200);
      const secret: string = start.body.secret;
      expect(
        (
          await r.send('POST', '/auth/totp/enroll/verify', {
            cookies,
            body: { code: codeAt(secret, r.h.t.clock.now()) },
          })
        ).status,
      ).toBe(200);
      expect((await r.send('GET', '/auth/totp/status', { cookies })).body.enabled).toBe(true);
      await r.send('DELETE', '/auth/logout', { cookies });
      r.h.t.clock.advance(60_000);
      const login = await r.send('POST', '/auth/login', { body: { identifier: 'totp.user@example.com' } });
      await r.send('POST', '/auth/otp/generate-login-email-otp', { cookies: login.cookies });
      await settle();
      const step = await r.send('POST', '/auth/otp/verify-login-email-otp', {
        cookies: login.cookies,
        body: { verificationToken: r.messages.at(-1)!.code! },
      });
      expect(step.body).toMatchObject({ mfaRequired: true, mfaMethods: ['totp'] });
      const done = await r.send('POST', '/auth/totp/verify-login', {
        cookies: step.cookies,
        body: { code: codeAt(secret, r.h.t.clock.now()) },
      });
      expect(done.status).toBe(200);
      r.h.t.clock.advance(30_000);
      const fresh = await r.send('POST', '/auth/totp/verify-mfa', {
        cookies: done.cookies,
        body: { code: codeAt(secret, r.h.t.clock.now()) },
      });
      expect(fresh.body).toMatchObject({ fresh: true, method: 'totp' });
      expect(
        (await r.send('POST', '/auth/totp/disable', { cookies: done.cookies, body: { code: '000000' } })).status,
      ).toBeGreaterThanOrEqual(400);
      expect(
        (await r.send('GET', '/auth/totp/status', { headers: { ...BEARER, authorization: 'Bearer not-a-token' } }))
          .status,
      ).toBe(401);
    },
  },
  {
    name: 'organizations: create, list, switch re-sets the access cookie; account deletion clears every cookie',
    async run(r) {
      const { cookies } = await signedInBrowser(r.h, { email: 'org.owner@example.com' });
      const org = await r.send('POST', '/auth/organizations', { cookies, body: { name: 'Parity Org' } });
      expect(org.status).toBe(201);
      const id: string = org.body.organization?.id ?? org.body.id;
      expect((await r.send('GET', '/auth/organizations', { cookies })).status).toBe(200);
      const switched = await r.send('POST', `/auth/organizations/${id}/switch`, { cookies, body: {} });
      expect(switched.status).toBe(200);
      expect(switched.setCookies.map((s) => s.split('=')[0])).toEqual(['svc-access']);
      expect((await r.send('GET', '/auth/sessions', { cookies: switched.cookies })).status).toBe(200);
      const env = await signIn(r.h.t, await createUser(r.h.t, { email: 'org.bearer@example.com' }));
      expect(
        (
          await r.send('POST', `/auth/organizations/${id}/switch`, {
            headers: { ...BEARER, authorization: `Bearer ${env.token}` },
            body: {},
          })
        ).status,
      ).toBeGreaterThanOrEqual(400);
      const deleted = await r.send('DELETE', '/auth/users/delete', { cookies: switched.cookies, body: {} });
      expect(deleted.status).toBe(200);
      expect(deleted.setCookies.map((c) => c.split(';')[0])).toEqual(['svc-access=', 'svc-refresh=', 'svc-ephemeral=']);
    },
  },
  {
    name: 'upstream failures: unreachable, HTML 5xx, JSON 4xx with extras and Retry-After, forged session',
    async run(r) {
      const { cookies } = await signedInBrowser(r.h, { email: 'failures@example.com' });
      r.h.intercept = (call) => {
        if (call.path === '/sessions') throw new TypeError('fetch failed');
        if (call.path === '/step-up/status')
          return new Response('<html>bad gateway</html>', { status: 503, headers: { 'content-type': 'text/html' } });
        if (call.path === '/organizations')
          return Response.json(
            { error: 'rate_limited', message: 'Slow down', limit: 5 },
            { status: 429, headers: { 'retry-after': '17' } },
          );
        if (call.path === '/otp/verify-login-email-otp')
          return Response.json({
            message: 'Success',
            token: 'a.b.c',
            refreshToken: 'r',
            sub: 'u',
            sessionId: 's',
            ttl: 900,
            refreshTtl: 60,
          });
        return undefined;
      };
      expect((await r.send('GET', '/auth/sessions', { cookies })).body).toEqual({
        error: 'upstream_unavailable',
        message: 'Auth server unreachable',
      });
      expect((await r.send('GET', '/auth/step-up/status', { cookies })).body).toEqual({ error: 'upstream_error' });
      const limited = await r.send('GET', '/auth/organizations', { cookies });
      expect([limited.status, limited.headers.get('retry-after'), limited.body.limit]).toEqual([429, '17', 5]);
      const pre = r.h.cookie({ kind: 'ephemeral', sub: 'u', token: 'x.y.z' }, 300);
      const forged = await r.send('POST', '/auth/otp/verify-login-email-otp', {
        cookies: { 'svc-ephemeral': pre },
        body: { verificationToken: 'ABCDEF' },
      });
      expect([forged.status, forged.body.error, forged.setCookies]).toEqual([502, 'invalid_upstream_response', []]);
    },
  },
  {
    name: 'every route of the table in cookie transport (signed-in admin)',
    apiEnv: { DISABLE_AUTH_RATE_LIMITS: 'true' },
    run: (r) => everyRoute(r, (cookies) => ({ cookies })),
  },
  {
    name: 'every route of the table in bearer transport (admin access token)',
    apiEnv: { DISABLE_AUTH_RATE_LIMITS: 'true' },
    async run(r) {
      const env = await signIn(r.h.t, await createUser(r.h.t, { email: 'every.bearer@example.com', roles: ['admin'] }));
      await everyRoute(r, () => ({ headers: { ...BEARER, authorization: `Bearer ${env.token}` } }));
    },
  },
];
