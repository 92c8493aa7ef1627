/**
 * Parity scenarios: application guards (`requireAuth`, `requireRole`, `getUser`), the origin guard and malformed input.
 */
import { expect } from 'vitest';
import { createUser, signIn } from '../../helpers/factories.js';
import { refreshOnlyBrowser, signedInBrowser } from '../helpers.js';
import type { Scenario } from './parity.js';

const USER_FIELDS = ['email', 'exp', 'iat', 'id', 'organizationId', 'phone', 'roles', 'sessionId', 'sub', 'token'];

export const GUARD_SCENARIOS: Scenario[] = [
  {
    name: 'requireAuth: cookie path, bearer path, no credential, invalid cookie; getUser',
    async run(r) {
      const { user, env, cookies } = await signedInBrowser(r.h, {
        email: 'guard.user@example.com',
        phone: '+14155550123',
      });
      const viaCookie = await r.send('GET', '/app', { cookies });
      expect(viaCookie.status).toBe(200);
      expect(Object.keys(viaCookie.body.user).sort()).toEqual(USER_FIELDS);
      expect(viaCookie.body.user).toMatchObject({
        id: user.id,
        sub: user.id,
        roles: ['user'],
        email: 'guard.user@example.com',
        phone: '+14155550123',
      });
      expect(viaCookie.body.user.exp - viaCookie.body.user.iat).toBe(900);
      const viaBearer = await r.send('GET', '/app', { headers: { authorization: `Bearer ${env.token}` } });
      expect(viaBearer.status).toBe(200);
      expect(Object.keys(viaBearer.body.user).sort()).toEqual(
        USER_FIELDS.filter((k) => k !== 'email' && k !== 'phone'),
      );
      expect(viaBearer.body.user).toMatchObject({
        id: user.id,
        sub: user.id,
        roles: ['user'],
        sessionId: env.sessionId,
      });
      expect((await r.send('GET', '/app')).body).toEqual({ error: 'unauthorized', message: 'Authentication required' });
      const invalid = await r.send('GET', '/app', {
        cookies: { 'svc-access': 'garbage' },
        headers: { authorization: `Bearer ${env.token}` },
      });
      expect(invalid.body).toEqual({ error: 'unauthorized', message: 'Invalid or expired session' });
      expect((await r.send('GET', '/profile', { cookies })).body.me).toMatchObject({
        id: user.id,
        email: 'guard.user@example.com',
      });
      expect((await r.send('GET', '/profile', { headers: { authorization: `Bearer ${env.token}` } })).body.me.id).toBe(
        user.id,
      );
      expect((await r.send('GET', '/profile')).body).toEqual({ me: null });
    },
  },
  {
    name: 'requireRole: admin, admin:read, plain user, no user',
    async run(r) {
      for (const roles of [['admin'], ['admin:read'], ['user']]) {
        const { cookies } = await signedInBrowser(r.h, { email: `${roles[0]!.replace(':', '.')}@example.com`, roles });
        const res = await r.send('GET', '/admin', { cookies });
        expect(res.status).toBe(roles[0] === 'user' ? 403 : 200);
      }
      const env = await signIn(r.h.t, await createUser(r.h.t, { email: 'bearer.admin@example.com', roles: ['admin'] }));
      expect((await r.send('GET', '/admin', { headers: { authorization: `Bearer ${env.token}` } })).status).toBe(200);
      expect((await r.send('GET', '/admin')).status).toBe(401);
    },
  },
  {
    name: 'origin guard with SameSite=None: cross-site refused before any refresh; allowed origins pass',
    over: { cookieSecure: true, cookieSameSite: 'none', allowedOrigins: ['https://Admin.Example '] },
    async run(r) {
      const { cookies } = await refreshOnlyBrowser(r.h, { email: 'origin.user@example.com' });
      for (const headers of [
        { origin: 'https://evil.example' },
        { 'sec-fetch-site': 'cross-site' },
        { origin: 'null' },
      ] as Record<string, string>[]) {
        const res = await r.send('DELETE', '/auth/logout', { cookies, headers });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ error: 'cross_site_request_blocked' });
      }
      expect(r.h.upstream).toHaveLength(0);
      const allowed = await r.send('POST', '/auth/refresh', { cookies, headers: { origin: 'https://admin.example' } });
      expect(allowed.status).toBe(200);
      expect(allowed.setCookies[0]).toMatch(/; HttpOnly; Secure; SameSite=None$/);
      expect(
        (
          await r.send('GET', '/auth/sessions', {
            cookies: allowed.cookies,
            headers: { origin: 'https://evil.example' },
          })
        ).status,
      ).toBe(200);
      // A present Origin outside the allowed set is refused whatever Sec-Fetch-Site claims (docs/contract-changes.md).
      expect(
        (
          await r.send('POST', '/auth/refresh', {
            cookies: allowed.cookies,
            headers: { 'sec-fetch-site': 'same-origin', origin: 'https://x.example' },
          })
        ).status,
      ).toBe(403);
      expect(
        (
          await r.send('POST', '/auth/refresh', {
            cookies: allowed.cookies,
            headers: { 'sec-fetch-site': 'same-origin' },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await r.send('DELETE', '/auth/logout', {
            headers: { origin: 'https://evil.example', 'x-svc-auth-transport': 'bearer' },
          })
        ).status,
      ).toBe(401);
    },
  },
  {
    name: 'malformed input: bad JSON, oversized, empty and non-object bodies, unknown paths, case, trailing slash, query',
    async run(r) {
      const json = { 'content-type': 'application/json' };
      expect((await r.send('POST', '/auth/login', { rawBody: '{nope', headers: json })).body).toEqual({
        error: 'invalid_request',
        message: 'Malformed JSON body',
      });
      expect(
        (await r.send('POST', '/auth/login', { rawBody: '{nope', headers: { 'content-type': 'text/plain' } })).status,
      ).toBe(400);
      expect((await r.send('POST', '/auth/login', { rawBody: '{nope' })).status).toBe(400);
      const big = await r.send('POST', '/auth/login', {
        rawBody: JSON.stringify({ identifier: 'x'.repeat(101 * 1024) }),
        headers: json,
      });
      expect(big.body).toEqual({ error: 'payload_too_large', message: 'Payload too large' });
      const justUnder = await r.send('POST', '/auth/login', {
        rawBody: `${JSON.stringify({ identifier: 'x' })}${' '.repeat(100 * 1024 - 20)}`,
        headers: json,
      });
      expect(justUnder.status).not.toBe(413);
      expect(r.h.upstream).toHaveLength(1);
      for (const rawBody of ['', '   ', '[1,2]', '"text"', 'null', '42'])
        expect((await r.send('POST', '/auth/login', { rawBody, headers: json })).status).toBe(400);
      expect((await r.send('POST', '/auth/login', { body: { identifier: 'not an identifier' } })).status).toBe(400);
      expect((await r.send('GET', '/auth/totally-unknown')).status).toBe(404);
      expect(
        (
          await r.send('OPTIONS', '/auth/login', {
            headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' },
          })
        ).status,
      ).toBe(404);
      expect((await r.send('POST', '/auth/totp/status')).status).toBe(405); // a mounted path, another method
      expect((await r.send('POST', '/auth/LOGIN', { body: { identifier: 'someone@example.com' } })).status).toBe(404);
      expect((await r.send('POST', '/auth/login/', { body: { identifier: 'someone@example.com' } })).status).toBe(404);
      expect((await r.send('GET', '/auth/system-config/public?x=1&x=2&y=%20z')).status).toBe(200);
      expect((await r.send('POST', '/auth/magic-link/verify/a%2Fb%20c')).status).toBeGreaterThanOrEqual(400);
      expect((await r.send('GET', '/auth/totp/status')).body).toEqual({
        error: 'unauthorized',
        message: 'Access session required',
      });
    },
  },
];
