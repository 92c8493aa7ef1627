/**
 * svcAdminConsole in process: the real adapter core in front of the real auth
 * API (makeApi), driven over HTTP like a browser would.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { svcAdapter, svcAdminConsole, type SvcAdminConsoleOptions } from '../../../adapter/hono/index.js';
import { CONSOLE_CSP } from '../../../adapter/hono/admin-console.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { APP_ORIGIN, makeHarness, refreshOnlyBrowser, signedInBrowser, type Harness, type Mount } from '../helpers.js';

const consoleMount =
  (extra: Partial<SvcAdminConsoleOptions> = {}): Mount =>
  async (opts) => {
    const app = new Hono();
    app.route('/auth', svcAdapter(opts));
    app.route('/admin', svcAdminConsole({ ...opts, ...extra }));
    return { request: async (path, init) => app.request(`http://localhost:3000${path}`, init), close: async () => {} };
  };

async function setup(extra: Partial<SvcAdminConsoleOptions> = {}, apiEnv: Record<string, string> = {}) {
  const h = await makeHarness({}, apiEnv, { mount: consoleMount(extra) });
  const admin = await signedInBrowser(h, { roles: ['admin'] });
  return { h, admin };
}

const SAME_ORIGIN = { origin: APP_ORIGIN, 'sec-fetch-site': 'same-origin' };
const CONSOLE_BASE = {
  authServerUrl: 'http://127.0.0.1:1',
  audience: 'http://127.0.0.1:1',
  issuer: APP_ORIGIN,
  serviceSecret: 's'.repeat(40),
  cookieSecret: 'c'.repeat(40),
};

/** Every `<script>` must load a file or carry JSON data: no inline code for the CSP to allow. */
const inlineScripts = (page: string) =>
  [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter(
    ([, attrs, code]) => !/\bsrc=/.test(attrs!) && !/type="application\/json"/.test(attrs!) && code!.trim() !== '',
  );

describe('svcAdminConsole guard', () => {
  it('answers 401 without a session, or redirects to signInUrl with the console path as next', async () => {
    const { h } = await setup();
    const res = await h.send('GET', '/admin/users?search=a');
    expect(res.status).toBe(401);
    expect(res.text).toContain('Sign in required');
    const { h: h2 } = await setup({ signInUrl: '/' });
    const redirected = await h2.send('GET', '/admin/users?search=a');
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get('location')).toBe(`/?next=${encodeURIComponent('/admin/users?search=a')}`);
  });

  it('refuses a signed-in user without admin:read with a 403 page, and its API with 403 forbidden', async () => {
    const { h } = await setup();
    const plain = await signedInBrowser(h);
    const page = await h.send('GET', '/admin/users', { cookies: plain.cookies });
    expect(page.status).toBe(403);
    expect(page.text).toContain('Administrators only');
    const api = await h.send('GET', '/admin/api/admin/users', { cookies: plain.cookies });
    expect(api.status).toBe(403);
    expect(api.body.error).toBe('forbidden');
  });

  it('refreshes a stale session transparently: a page with only the refresh cookie renders and sets a new access cookie', async () => {
    const { h } = await setup();
    const { cookies } = await refreshOnlyBrowser(h, { roles: ['admin:read'] });
    const res = await h.send('GET', '/admin/users', { cookies });
    expect(res.status).toBe(200);
    expect(res.cookies['svc-access']).toBeTruthy();
    expect(res.text).toContain('id="users-table"');
  });
});

describe('svcAdminConsole pages', () => {
  it('serves every screen with a CSP that allows no inline script, and no inline script in the page', async () => {
    const { h, admin } = await setup();
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
    for (const path of [
      '/admin',
      '/admin/users',
      `/admin/users/${admin.user.id}`,
      '/admin/sessions',
      '/admin/events',
      '/admin/organizations',
      '/admin/config',
      '/admin/providers',
    ]) {
      const res = await h.send('GET', path, { cookies: admin.cookies });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-security-policy'), path).toBe(CONSOLE_CSP);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(inlineScripts(res.text), path).toEqual([]);
      expect(res.text, path).not.toMatch(/\son[a-z]+=/i); // no inline event handlers either
    }
  });

  it('has a back-to-app link and a sign-out control on every screen (appUrl default /, signOutUrl default /auth/logout)', async () => {
    const { h, admin } = await setup();
    for (const path of ['/admin', '/admin/users', '/admin/config']) {
      const res = await h.send('GET', path, { cookies: admin.cookies });
      expect(res.text, path).toContain(
        '<a id="back-to-app" href="/"><span aria-hidden="true">←</span> Back to the app</a>',
      );
      expect(res.text, path).toContain(
        '<button type="button" id="sign-out" class="secondary" data-sign-out="/auth/logout" data-after="/">Sign out</button>',
      );
    }
    const { h: h2, admin: admin2 } = await setup({ appUrl: '/home', signOutUrl: '/api/auth/logout' });
    const res = await h2.send('GET', '/admin', { cookies: admin2.cookies });
    expect(res.text).toContain('<a id="back-to-app" href="/home">');
    expect(res.text).toContain('data-sign-out="/api/auth/logout" data-after="/home"');
    // The control's script: DELETE the adapter's logout (same origin, cookies), then go back to the app.
    const js = await h2.send('GET', '/admin/assets/console.js');
    // Matched across line breaks: the formatter may lay the call out on several lines.
    expect(js.text).toMatch(/fetch\(button\.dataset\.signOut, \{\s*method: 'DELETE',\s*credentials: 'same-origin'/);
    // What the control calls signs the browser out: the console then refuses the old cookies.
    const out = await h.send('DELETE', '/auth/logout', { cookies: admin.cookies, headers: SAME_ORIGIN });
    expect(out.status).toBe(204);
    expect((await h.send('GET', '/admin', { cookies: out.cookies })).status).toBe(401);
  });

  it('refuses an appUrl or signOutUrl that is not a same-origin path', () => {
    for (const bad of [
      '//evil.test',
      'https://evil.test/',
      'javascript:alert(1)',
      '',
      '/\\evil.test',
      '/\t/evil.test',
      '/a b',
    ]) {
      expect(() => svcAdminConsole({ ...CONSOLE_BASE, appUrl: bad }), bad).toThrow(
        'svcAdminConsole: appUrl must be a same-origin path',
      );
      expect(() => svcAdminConsole({ ...CONSOLE_BASE, signOutUrl: bad }), bad).toThrow(
        'svcAdminConsole: signOutUrl must be a same-origin path',
      );
    }
  });

  it('shows an admin:read user the screens without any write control', async () => {
    const { h } = await setup();
    const reader = await signedInBrowser(h, { roles: ['admin:read'] });
    const target = await signedInBrowser(h);
    for (const path of [`/admin/users/${target.user.id}`, '/admin/sessions', '/admin/config', '/admin/providers']) {
      const res = await h.send('GET', path, { cookies: reader.cookies });
      expect(res.status, path).toBe(200);
      expect(res.text, path).not.toMatch(/data-api=/);
      expect(res.text, path).toContain('read-only');
    }
  });

  it('searches users and pages through them', async () => {
    const { h, admin } = await setup({ pageSize: 2 });
    for (let i = 0; i < 3; i++) await createUser(h.t, { email: `findme${i}@example.com` });
    const res = await h.send('GET', '/admin/users?search=findme', { cookies: admin.cookies });
    expect(res.text.match(/findme\d@example\.com<\/a>/g)).toHaveLength(2);
    expect(res.text).toContain('1–2 of 3');
    const next = await h.send('GET', '/admin/users?search=findme&offset=2', { cookies: admin.cookies });
    expect(next.text.match(/findme\d@example\.com<\/a>/g)).toHaveLength(1);
    const byId = await h.send('GET', `/admin/users?search=${admin.user.id}`, { cookies: admin.cookies });
    expect(byId.text).toContain(`${admin.user.email}</a>`);
    expect(byId.text).toContain('1–1 of 1');
  });

  it('escapes values from the API, so stored markup never becomes markup', async () => {
    const { h, admin } = await setup();
    const created = await h.send('POST', '/admin/api/admin/organizations', {
      cookies: admin.cookies,
      headers: SAME_ORIGIN,
      body: { name: '<img src=x onerror=alert(1)>', slug: 'evil-org' },
    });
    expect(created.status).toBe(201);
    const page = await h.send('GET', '/admin/organizations', { cookies: admin.cookies });
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.text).not.toContain('<img src=x');
  });

  it("keeps the admin's direct add of a member (users join by invitation; the console form uses the admin route)", async () => {
    const { h, admin } = await setup();
    const org = (
      await h.send('POST', '/admin/api/admin/organizations', {
        cookies: admin.cookies,
        headers: SAME_ORIGIN,
        body: { name: 'Direct' },
      })
    ).body as { organization: { id: string } };
    const member = await createUser(h.t);
    const added = await h.send('POST', `/admin/api/admin/organizations/${org.organization.id}/members`, {
      cookies: admin.cookies,
      headers: SAME_ORIGIN,
      body: { email: member.email, roles: ['member'] },
    });
    expect(added.status).toBe(201);
    const page = await h.send('GET', `/admin/organizations/${org.organization.id}`, { cookies: admin.cookies });
    expect(page.text).toContain('Add a member');
    expect(page.text).toContain(member.email);
  });

  it('never renders a secret: no tokens, no client secret, only the name of its env variable', async () => {
    const { h, admin } = await setup({}, { GITHUB_CLIENT_SECRET: 'very-secret-client-value-42' });
    const provider = {
      id: 'github',
      name: 'GitHub',
      clientId: 'gh-client',
      clientSecretEnv: 'GITHUB_CLIENT_SECRET',
      authorizationUrl: 'https://github.com/login/oauth/authorize',
      tokenUrl: 'https://github.com/login/oauth/access_token',
      userInfoUrl: 'https://api.github.com/user',
    };
    expect(
      (
        await h.send('POST', '/admin/api/system-config/oauth-providers', {
          cookies: admin.cookies,
          headers: SAME_ORIGIN,
          body: provider,
        })
      ).status,
    ).toBe(201);
    const target = await signedInBrowser(h);
    const pages = await Promise.all(
      ['/admin/providers', `/admin/users/${target.user.id}`, '/admin/sessions', '/admin/config', '/admin/events'].map(
        (p) => h.send('GET', p, { cookies: admin.cookies }),
      ),
    );
    const all = pages.map((p) => p.text).join('\n');
    expect(pages[0]!.text).toContain('GITHUB_CLIENT_SECRET');
    for (const secret of [
      'very-secret-client-value-42',
      admin.env.token,
      admin.env.refreshToken,
      target.env.token,
      target.env.refreshToken,
      h.opts.cookieSecret,
      h.opts.serviceSecret,
    ])
      expect(all).not.toContain(secret);
  });

  it('turns bad query input into field errors, never a 500', async () => {
    const { h, admin } = await setup();
    const events = await h.send(
      'GET',
      '/admin/events?from=yesterday&ip=1.2.3.4;drop&user=nobody@example.com&offset=-3',
      { cookies: admin.cookies },
    );
    expect(events.status).toBe(200);
    expect(events.text).toContain('id="err-from"');
    expect(events.text).toContain('id="err-ip"');
    expect(events.text).toContain('No user with this email');
    expect(
      (await h.send('GET', `/admin/users?offset=abc&search=${'x'.repeat(400)}`, { cookies: admin.cookies })).status,
    ).toBe(200);
    expect((await h.send('GET', '/admin/users/not-a-user', { cookies: admin.cookies })).status).toBe(404);
    // A dot segment never travels upstream, where the URL parser would resolve it to another route.
    h.upstream.length = 0;
    for (const path of ['/admin/users/%2e%2e', '/admin/organizations/%2E', '/admin/sessions?user=..']) {
      const res = await h.send('GET', path, { cookies: admin.cookies });
      expect(res.status, path).toBeLessThan(500);
    }
    // (The recorded paths are URL-normalised: a dot segment that got through would show up as one of these.)
    expect(
      h.upstream
        .map((c) => c.path.split('?')[0])
        .filter((p) => ['/admin/', '/admin/organizations/', '/admin/organizations/members'].includes(p!)),
    ).toEqual([]);
    expect((await h.send('GET', '/admin?range=forever', { cookies: admin.cookies })).status).toBe(200);
  });

  it("pins event pages to the first page's moment: events arriving meanwhile never shift page 2", async () => {
    const { h, admin } = await setup({ pageSize: 3 });
    for (let i = 0; i < 6; i++) {
      h.t.clock.advance(1000);
      await h.t.api.deps.events.record({ type: 'login_failed', metadata: { n: i } });
    }
    const ids = (text: string) => [...text.matchAll(/>\{&quot;n&quot;:(\d)\}</g)].map((m) => m[1]);
    const first = await h.send('GET', '/admin/events?type=login_failed', { cookies: admin.cookies });
    expect(ids(first.text).slice(0, 3)).toEqual(['5', '4', '3']);
    const next = /<a class="button secondary" rel="next" href="([^"]+)"/.exec(first.text)![1]!.replace(/&amp;/g, '&');
    expect(next).toContain('asof=');
    h.t.clock.advance(1000);
    for (let i = 6; i < 9; i++) await h.t.api.deps.events.record({ type: 'login_failed', metadata: { n: i } });
    const second = await h.send('GET', next, { cookies: admin.cookies });
    expect(ids(second.text).slice(0, 3)).toEqual(['2', '1', '0']);
  });

  it('draws sign-in health from the metrics: chart data and the same numbers in a table', async () => {
    const { h, admin } = await setup();
    await h.t.api.deps.events.record({ type: 'login_failed' });
    await h.t.api.deps.events.record({ type: 'account_locked' });
    const res = await h.send('GET', '/admin', { cookies: admin.cookies });
    expect(res.text).toContain('<script src="/admin/assets/uplot.js"></script>');
    const data = JSON.parse(
      /<script type="application\/json" id="chart-data">([\s\S]*?)<\/script>/.exec(res.text)![1]!,
    );
    expect(data.map((c: { id: string }) => c.id)).toEqual(['chart-signins', 'chart-failures', 'chart-otp']);
    const failures = data[1].series.map((s: { label: string; values: number[] }) => [
      s.label,
      s.values.reduce((a, b) => a + b, 0),
    ]);
    expect(failures).toEqual([
      ['Failed sign-ins', 1],
      ['Lockouts', 1],
    ]);
    expect(res.text).toMatch(
      /<table data-for="chart-failures">[\s\S]*<tfoot><tr><th scope="row">Total<\/th><td class="num">1<\/td><td class="num">1<\/td>/,
    );
    expect(res.text).toContain('id="stat-active-sessions"');
    expect(res.text).toMatch(/<code>login_failed<\/code><\/a><\/td><td class="num">1</);
  });
});

describe('svcAdminConsole API (writes)', () => {
  const revokeTarget = async (h: Harness) => {
    const target = await signedInBrowser(h);
    return { target, path: `/admin/api/admin/sessions/by-id/${target.env.sessionId}` };
  };

  it('refuses a write from another origin, whatever the cookie SameSite, before calling the API', async () => {
    const { h, admin } = await setup();
    const { path } = await revokeTarget(h);
    h.upstream.length = 0;
    const res = await h.send('DELETE', path, {
      cookies: admin.cookies,
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('cross_site_request_blocked');
    expect(h.upstream.filter((c) => c.path.startsWith('/admin/'))).toEqual([]);
  });

  it('needs admin:write for a write: admin:read gets 403 forbidden and the API is not called', async () => {
    const { h } = await setup();
    const reader = await signedInBrowser(h, { roles: ['admin:read'] });
    const { path } = await revokeTarget(h);
    h.upstream.length = 0;
    const res = await h.send('DELETE', path, { cookies: reader.cookies, headers: SAME_ORIGIN });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'forbidden', required: ['admin:write'] });
    expect(h.upstream.filter((c) => c.path.startsWith('/admin/'))).toEqual([]);
  });

  it('revokes a session, signs its user out, and records the acting admin in the auth-event log', async () => {
    const { h, admin } = await setup();
    const { target, path } = await revokeTarget(h);
    const res = await h.send('DELETE', path, { cookies: admin.cookies, headers: SAME_ORIGIN });
    expect(res.status).toBe(200);
    expect(
      (await h.send('GET', '/auth/users/me', { cookies: { 'svc-refresh': target.cookies['svc-refresh'] } })).status,
    ).toBe(401);
    const events = await h.send(
      'GET',
      `/admin/api/admin/auth-events?type=admin_session_revoked&userId=${target.user.id}`,
      { cookies: admin.cookies },
    );
    expect(events.body.events[0]).toMatchObject({
      type: 'admin_session_revoked',
      userId: target.user.id,
      actorUserId: admin.user.id,
    });
  });

  it('records the acting admin for role edits and config changes too', async () => {
    const { h, admin } = await setup();
    const target = await createUser(h.t);
    expect(
      (
        await h.send('PATCH', `/admin/api/admin/users/${target.id}`, {
          cookies: admin.cookies,
          headers: SAME_ORIGIN,
          body: { roles: ['user', 'admin:read'] },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await h.send('PATCH', '/admin/api/system-config/admin', {
          cookies: admin.cookies,
          headers: SAME_ORIGIN,
          body: { app_name: 'Renamed' },
        })
      ).status,
    ).toBe(200);
    const events = await h.send('GET', `/admin/api/admin/auth-events?actorUserId=${admin.user.id}&limit=100`, {
      cookies: admin.cookies,
    });
    const types = events.body.events.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['system_config_updated']));
    expect(events.body.events.every((e: { actorUserId: string }) => e.actorUserId === admin.user.id)).toBe(true);
    expect(events.body.events.length).toBeGreaterThanOrEqual(2);
  });

  it('revokes and unrevokes a user, and deletes one, each reflected on the user screen', async () => {
    const { h, admin } = await setup();
    const target = await signedInBrowser(h);
    const api = `/admin/api/admin/users/${target.user.id}`;
    const page = async () => (await h.send('GET', `/admin/users/${target.user.id}`, { cookies: admin.cookies })).text;
    expect(await page()).toContain('>Revoke access</button>');
    expect(
      (await h.send('PATCH', api, { cookies: admin.cookies, headers: SAME_ORIGIN, body: { revoked: true } })).status,
    ).toBe(200);
    const revoked = await page();
    expect(revoked).toContain('<span class="pill red">revoked</span>');
    expect(revoked).toContain('>Unrevoke</button>');
    expect((await h.send('GET', '/auth/users/me', { cookies: target.cookies })).status).toBe(401);
    expect(
      (await h.send('PATCH', api, { cookies: admin.cookies, headers: SAME_ORIGIN, body: { revoked: false } })).status,
    ).toBe(200);
    expect(await page()).toContain('<span class="pill green">active</span>');
    // The delete button asks for the email to be typed, and sends the admin back to the list.
    expect(await page()).toContain(`data-type-to-confirm="${target.user.email}"`);
    expect((await h.send('DELETE', api, { cookies: admin.cookies, headers: SAME_ORIGIN })).status).toBe(200);
    expect((await h.send('GET', `/admin/users/${target.user.id}`, { cookies: admin.cookies })).status).toBe(404);
  });

  it('forwards the API validation issues of a bad config value with their field path', async () => {
    const { h, admin } = await setup();
    const res = await h.send('PATCH', '/admin/api/system-config/admin', {
      cookies: admin.cookies,
      headers: SAME_ORIGIN,
      body: { access_token_ttl: 'soon' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.details.issues[0].path).toEqual(['access_token_ttl']);
  });

  it('forwards step_up_required unchanged, and serves the step-up routes to the signed-in admin', async () => {
    const { h, admin } = await setup();
    const target = await createUser(h.t);
    const res = await h.send('POST', `/admin/api/admin/users/${target.id}/recovery/device-replacement`, {
      cookies: admin.cookies,
      headers: SAME_ORIGIN,
      body: { proofing: { method: 'in_person', evidenceRef: 'ticket-1' } },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'step_up_required', fresh: false, maxAgeSeconds: 300 });
    const status = await h.send('GET', '/admin/api/step-up/status', { cookies: admin.cookies });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ fresh: false });
    const totp = await h.send('POST', '/admin/api/totp/verify-mfa', {
      cookies: admin.cookies,
      headers: SAME_ORIGIN,
      body: { code: '000000' },
    });
    // no authenticator app enrolled: refused by the API, not by the console
    expect([400, 401, 403, 404, 409]).toContain(totp.status);
    expect(typeof totp.body.error).toBe('string');
  });

  it('ignores the bearer transport header: the console API is cookie-only', async () => {
    const { h } = await setup();
    const other = await signIn(h.t, await createUser(h.t, { roles: ['admin'] }));
    const res = await h.send('GET', '/admin/api/admin/users', {
      headers: { authorization: `Bearer ${other.token}`, 'x-svc-auth-transport': 'bearer' },
    });
    expect(res.status).toBe(401);
  });

  it('answers 404 for an API path it does not carry (no open proxy)', async () => {
    const { h, admin } = await setup();
    expect((await h.send('GET', '/admin/api/users/me', { cookies: admin.cookies })).status).toBe(404);
    expect(
      (await h.send('POST', '/admin/api/login', { cookies: admin.cookies, headers: SAME_ORIGIN, body: {} })).status,
    ).toBe(404);
  });
});
