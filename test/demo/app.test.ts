import { describe, expect, it } from 'vitest';
import { createCookieCodec } from '../../adapter/core/cookies.js';
import { createDemoApp } from '../../demo/app.js';
import { createUser, signIn } from '../helpers/factories.js';
import { makeApi, TEST_ISSUER, TEST_SERVICE_TOKEN } from '../helpers/make-app.js';

const DEMO_COOKIE_SECRET = 'demo-test-cookie-secret-0123456789abcdef';

async function demo(production = false) {
  const t = await makeApi();
  const { app } = createDemoApp({
    authServerUrl: TEST_ISSUER,
    serviceSecret: TEST_SERVICE_TOKEN,
    printMessages: false,
    production,
    cookieSecret: production ? 'demo-test-production-cookie-secret-0123456789' : DEMO_COOKIE_SECRET,
    fetch: (input, init) => Promise.resolve(t.api.request(input, init)),
    resolveClientIp: () => '198.51.100.9', // app.request has no socket
  });
  return { t, app };
}

describe('demo app', () => {
  it('serves the login page, its scripts and the WebAuthn browser bundle', async () => {
    const { app } = await demo();
    const page = await app.request('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('Sign in or create an account');
    for (const path of [
      '/static/login.js',
      '/static/common.js',
      '/static/auth.js',
      '/static/svc-client.js',
      '/static/account.js',
      '/static/styles.css',
      '/static/webauthn.js',
      '/verify-magiclink',
    ]) {
      expect((await app.request(path)).status, path).toBe(200);
    }
    expect(await (await app.request('/static/webauthn.js')).text()).toContain('SimpleWebAuthnBrowser');
    // The pages' auth calls go through the bundled svc-auth/client (ESM exports of the client and the passkey helpers).
    const bundle = await app.request('/static/svc-client.js');
    expect(bundle.headers.get('content-type')).toContain('text/javascript');
    expect(await bundle.text()).toMatch(/export\{[^}]*createSvcClient/);
    expect((await app.request('/static/..%2Fapp.ts')).status).toBe(404);
  });

  it('answers 401 on /auth/users/me for an anonymous browser and sends /app and /admin to the login page', async () => {
    const { app } = await demo();
    const me = await app.request('/auth/users/me');
    expect(me.status).toBe(401);
    expect(await me.json()).toEqual({ error: 'unauthorized', message: 'Access session required' });
    const page = await app.request('/app');
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('/?next=%2Fapp');
    const admin = await app.request('/admin/users?search=x');
    expect(admin.status).toBe(302);
    expect(admin.headers.get('location')).toBe(`/?next=${encodeURIComponent('/admin/users?search=x')}`);
  });

  it('registers through the adapter with the dev delivery and exposes the last code at /dev/outbox', async () => {
    const { app } = await demo();
    const reg = await app.request('/auth/registration/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'demo@example.com' }),
    });
    expect(reg.status).toBe(200);
    const cookie = reg.headers.getSetCookie()[0]!.split(';')[0]!;
    await new Promise((r) => setTimeout(r, 20));
    const outbox = await app.request('/dev/outbox?to=DEMO@example.com');
    expect(outbox.status).toBe(200);
    const { code, kind } = (await outbox.json()) as { code: string; kind: string };
    expect(kind).toBe('otp_email');
    const verify = await app.request('/auth/otp/verify-email-otp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ verificationToken: code }),
    });
    expect(verify.status).toBe(200);
    const cookies = verify.headers
      .getSetCookie()
      .map((s) => s.split(';')[0])
      .filter((s) => !s!.endsWith('='))
      .join('; ');
    const account = await app.request('/app', { headers: { cookie: cookies } });
    expect(account.status).toBe(200);
    const profile = (await (await app.request('/api/profile', { headers: { cookie: cookies } })).json()) as any;
    expect(profile.me.email).toBe('demo@example.com');
    expect(profile.user).not.toHaveProperty('token');
    // A signed-in user without the role gets a readable 403 page, not the guard's JSON.
    const forbidden = await app.request('/admin', { headers: { cookie: cookies } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('content-type')).toContain('text/html');
    const page = await forbidden.text();
    expect(page).toContain('You do not have access to this page');
    // Development: how to become an admin of one's own demo.
    expect(page).toContain('OWNER_EMAIL=you@example.com npm start');
    // The login page knows it is signed in, so its script asks /auth/users/me.
    expect(await (await app.request('/', { headers: { cookie: cookies } })).text()).toContain(
      '<meta name="svc-session" content="signed-in">',
    );
    const refreshOnly = cookies
      .split('; ')
      .filter((c) => c.startsWith('svc-refresh='))
      .join('; ');
    expect(refreshOnly).not.toBe('');
    expect(await (await app.request('/', { headers: { cookie: refreshOnly } })).text()).toContain(
      '<meta name="svc-session" content="refresh">',
    );
  });

  it('tells the login page a visitor has no session, so it makes no request that fails with 401', async () => {
    const { app } = await demo();
    for (const cookie of [undefined, 'svc-access=not.a.token', 'other=1']) {
      const html = await (await app.request('/', cookie ? { headers: { cookie } } : {})).text();
      expect(html, cookie).toContain('<meta name="svc-session" content="none">');
    }
    // The page's script reads the hint and asks /auth/users/me only when there may be a session.
    const script = await (await app.request('/static/login.js')).text();
    expect(script).toContain("sessionHint() !== 'none'");
  });

  it('lets an admin:read user into the admin console at /admin and lists users through it', async () => {
    const { t, app } = await demo();
    const admin = await createUser(t, { roles: ['admin:read'] });
    const env = await signIn(t, admin);
    const codec = createCookieCodec(DEMO_COOKIE_SECRET, 'http://localhost:3000');
    const access = codec.sign(
      {
        kind: 'access',
        sub: admin.id,
        sessionId: env.sessionId,
        token: env.token,
        roles: env.roles,
        email: env.email,
        phone: null,
        organizationId: null,
      },
      env.ttl,
      Date.now(),
    );
    const page = await app.request('/admin', { headers: { cookie: `svc-access=${access}` } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>Sign-in health</h1>');
    const list = await app.request('/admin/users', { headers: { cookie: `svc-access=${access}` } });
    expect(await list.text()).toContain(`${admin.email}</a>`);
    const users = await app.request('/auth/admin/users', { headers: { cookie: `svc-access=${access}` } });
    expect(users.status).toBe(200);
    expect(((await users.json()) as any).users.map((u: { email: string }) => u.email)).toContain(admin.email);
  });

  it('a scanner fetching the emailed magic link gets the page and consumes nothing; the page verifies it', async () => {
    const { t, app } = await demo();
    const user = await createUser(t, { email: 'scanned@example.com' });
    const login = await app.request('/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Browser A' },
      body: JSON.stringify({ identifier: user.email }),
    });
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const requested = await app.request('/auth/magic-link', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Browser A', cookie },
      body: '{}',
    });
    expect(requested.status, await requested.clone().text()).toBe(200);
    await new Promise((r) => setTimeout(r, 20));
    const { magicLinkUrl } = (await (await app.request(`/dev/outbox?to=${user.email}`)).json()) as {
      magicLinkUrl: string;
    };
    const link = new URL(magicLinkUrl);
    expect(link.pathname).toBe('/verify-magiclink'); // the app's page, not the adapter
    for (let i = 0; i < 3; i++) {
      const scanned = await app.request(link.pathname + link.search); // prefetch, link preview, virus scanner
      expect(scanned.status).toBe(200);
      expect(scanned.headers.get('content-type')).toContain('text/html');
    }
    const pending = await app.request('/auth/magic-link/check', {
      headers: { cookie, 'sec-fetch-site': 'same-origin', 'user-agent': 'Browser A' },
    });
    expect(pending.status).toBe(204); // still unverified: the scanner consumed nothing
    // What the page's script does: the verify shows the number challenge (consuming nothing)…
    const token = link.searchParams.get('token');
    const challenge = await app.request(`/auth/magic-link/verify/${token}`, {
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(challenge.status).toBe(200);
    const asked = (await challenge.json()) as { status: string; choices: number[] };
    expect(asked.status).toBe('confirmation_required');
    expect(
      (
        await app.request('/auth/magic-link/check', {
          headers: { cookie, 'sec-fetch-site': 'same-origin', 'user-agent': 'Browser A' },
        })
      ).status,
    ).toBe(204);
    // …and the number the asking tab shows completes it.
    const { confirmationNumber } = (await requested.json()) as { confirmationNumber: number };
    expect(asked.choices).toContain(confirmationNumber);
    const verified = await app.request(`/auth/magic-link/verify/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ number: confirmationNumber }),
    });
    expect(verified.status).toBe(200);
    expect(
      (
        await app.request('/auth/magic-link/check', {
          headers: { cookie, 'sec-fetch-site': 'same-origin', 'user-agent': 'Browser A' },
        })
      ).status,
    ).toBe(200);
  });

  it('has no default cookie secret: a missing or short one refuses to start', async () => {
    // A default in the source would let anyone sign a cookie that requireAuth + requireRole('admin:read') accept.
    for (const production of [false, true]) {
      for (const cookieSecret of [undefined, 'short']) {
        expect(() =>
          createDemoApp({
            authServerUrl: TEST_ISSUER,
            serviceSecret: TEST_SERVICE_TOKEN,
            printMessages: false,
            production,
            cookieSecret: cookieSecret as string,
          }),
        ).toThrow(/cookieSecret must be at least 32 characters/);
      }
    }
  });

  it('serves the /.well-known association files at its root, as an app mounting svcWellKnown does', async () => {
    const { app } = await demo();
    const webauthn = await app.request('/.well-known/webauthn');
    expect(webauthn.status).toBe(200);
    expect(webauthn.headers.get('content-type')).toContain('application/json');
    expect(await webauthn.json()).toEqual({ origins: expect.any(Array) });
    const links = await app.request('/.well-known/assetlinks.json');
    expect(links.status).toBe(200);
    expect(await links.json()).toEqual(expect.any(Array));
    const apple = await app.request('/.well-known/apple-app-site-association');
    expect(apple.status).toBe(200);
    expect(await apple.json()).toMatchObject({ webcredentials: { apps: expect.any(Array) } });
    // GET only, like the adapter's own table.
    expect((await app.request('/.well-known/webauthn', { method: 'POST' })).status).toBe(405);
  });

  it('does not mount /dev/outbox in production', async () => {
    const { app } = await demo(true);
    expect((await app.request('/dev/outbox?to=a@b.co')).status).toBe(404);
  });
});
