/** svcExpressAdminConsole: the console's guard, pages, CSP, CSV and write rules on Express 5, over a real port. */
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { svcExpressAdapter, svcExpressAdminConsole } from '../../../adapter/express/index.js';
import { CONSOLE_CSP } from '../../../adapter/hono/admin-console.js';
import { createUser } from '../../helpers/factories.js';
import { APP_ORIGIN, makeHarness, signedInBrowser, type Mount } from '../helpers.js';
import { closeServers, listen } from './harness.js';

afterEach(closeServers);

const mount: Mount = async (opts) => {
  const app = express();
  app.use('/auth', svcExpressAdapter(opts));
  app.use('/ops/admin', svcExpressAdminConsole({ ...opts, signInUrl: '/login' }));
  const { server, base } = await listen(app);
  return {
    request: (path, init) => fetch(base + path, { ...init, redirect: 'manual' }),
    close: async () => server.closeAllConnections(),
  };
};

const SAME_ORIGIN = { origin: APP_ORIGIN, 'sec-fetch-site': 'same-origin' };

describe('svcExpressAdminConsole', () => {
  it('redirects a visitor without a session to signInUrl, and refuses a non-admin with the 403 page', async () => {
    const h = await makeHarness({}, {}, { mount });
    const anon = await h.send('GET', '/ops/admin/users?search=a');
    expect(anon.status).toBe(302);
    expect(anon.headers.get('location')).toBe(`/login?next=${encodeURIComponent('/ops/admin/users?search=a')}`);
    const plain = await signedInBrowser(h);
    const forbidden = await h.send('GET', '/ops/admin/users', { cookies: plain.cookies });
    expect(forbidden.status).toBe(403);
    expect(forbidden.text).toContain('Administrators only');
  });

  it('renders the screens under its mount path with the CSP, links following the mount', async () => {
    const h = await makeHarness({}, {}, { mount });
    const admin = await signedInBrowser(h, { roles: ['admin'] });
    await createUser(h.t, { email: 'express-user@example.com' });
    for (const path of [
      '',
      '/users',
      `/users/${admin.user.id}`,
      '/sessions',
      '/events',
      '/organizations',
      '/config',
      '/providers',
    ]) {
      const res = await h.send('GET', `/ops/admin${path}`, { cookies: admin.cookies });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(res.text).toContain('<script type="module" src="/ops/admin/assets/console.js"></script>');
    }
    const search = await h.send('GET', '/ops/admin/users?search=express-user', { cookies: admin.cookies });
    expect(search.text).toContain('href="/ops/admin/users/');
    expect(search.text).toContain('express-user@example.com</a>');
    const js = await h.send('GET', '/ops/admin/assets/console.js');
    expect(js.headers.get('content-type')).toContain('text/javascript');
    const csv = await h.send('GET', '/ops/admin/events.csv', { cookies: admin.cookies });
    expect(csv.headers.get('content-type')).toContain('text/csv');
  });

  it('applies the write rules: origin guard, admin:write, and the acting admin in the event log', async () => {
    const h = await makeHarness({}, {}, { mount });
    const admin = await signedInBrowser(h, { roles: ['admin'] });
    const reader = await signedInBrowser(h, { roles: ['admin:read'] });
    const target = await signedInBrowser(h);
    const path = `/ops/admin/api/admin/sessions/by-id/${target.env.sessionId}`;
    const cross = await h.send('DELETE', path, { cookies: admin.cookies, headers: { origin: 'https://evil.example' } });
    expect([cross.status, cross.body.error]).toEqual([403, 'cross_site_request_blocked']);
    const readOnly = await h.send('DELETE', path, { cookies: reader.cookies, headers: SAME_ORIGIN });
    expect([readOnly.status, readOnly.body.error]).toEqual([403, 'forbidden']);
    const ok = await h.send('DELETE', path, { cookies: admin.cookies, headers: SAME_ORIGIN });
    expect(ok.status).toBe(200);
    const events = await h.send('GET', `/ops/admin/api/admin/auth-events?type=admin_session_revoked`, {
      cookies: admin.cookies,
    });
    expect(events.body.events[0]).toMatchObject({ userId: target.user.id, actorUserId: admin.user.id });
    expect((await h.send('GET', '/ops/admin/api/users/me', { cookies: admin.cookies })).status).toBe(404);
  });
});
