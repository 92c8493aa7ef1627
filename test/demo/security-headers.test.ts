/**
 * The demo's pages cannot be framed and carry a strict CSP:
 * every HTML page the demo serves (`/`, `/app`, `/verify-magiclink`, the 403
 * page) sends the headers below, and the pages hold no inline script, style
 * or handler that the CSP would block (it has no 'unsafe-inline').
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../adapter/admin-console/console-http.js';
import { createDemoApp } from '../../demo/app.js';
import { makeApi, TEST_ISSUER, TEST_SERVICE_TOKEN } from '../helpers/make-app.js';

async function demo() {
  const t = await makeApi();
  const { app } = createDemoApp({
    authServerUrl: TEST_ISSUER,
    serviceSecret: TEST_SERVICE_TOKEN,
    cookieSecret: 'demo-test-cookie-secret-0123456789abcdef',
    printMessages: false,
    production: false,
    fetch: (input, init) => Promise.resolve(t.api.request(input, init)),
    resolveClientIp: () => '198.51.100.9',
  });
  return { t, app };
}

/** Signs up through the demo (dev outbox), returning the browser's cookies. */
async function signedIn(app: Awaited<ReturnType<typeof demo>>['app'], email: string): Promise<string> {
  const json = { 'content-type': 'application/json' };
  const reg = await app.request('/auth/registration/register', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email }),
  });
  expect(reg.status).toBe(200);
  const cookie = reg.headers.getSetCookie()[0]!.split(';')[0]!;
  await new Promise((r) => setTimeout(r, 20));
  const { code } = (await (await app.request(`/dev/outbox?to=${email}`)).json()) as { code: string };
  const verify = await app.request('/auth/otp/verify-email-otp', {
    method: 'POST',
    headers: { ...json, cookie },
    body: JSON.stringify({ verificationToken: code }),
  });
  expect(verify.status).toBe(200);
  return verify.headers
    .getSetCookie()
    .map((s) => s.split(';')[0])
    .filter((s) => !s!.endsWith('='))
    .join('; ');
}

function directives(csp: string | null): Map<string, string> {
  expect(csp, 'content-security-policy').toBeTruthy();
  return new Map(
    csp!
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => [d.split(/\s+/)[0]!, d.split(/\s+/).slice(1).join(' ')] as [string, string]),
  );
}

function expectPageHeaders(res: Response, what: string) {
  expect(res.headers.get('content-type'), what).toContain('text/html');
  const csp = directives(res.headers.get('content-security-policy'));
  expect(csp.get('default-src'), what).toBe("'self'");
  expect(csp.get('script-src'), what).toBe("'self'");
  expect(csp.get('style-src'), what).toBe("'self'");
  expect(csp.get('frame-ancestors'), what).toBe("'none'");
  expect(csp.get('base-uri'), what).toBe("'none'");
  expect(csp.get('form-action'), what).toBe("'self'");
  expect(csp.get('object-src'), what).toBe("'none'");
  for (const [name, value] of csp) expect(value, `${what}: ${name}`).not.toMatch(/unsafe-|\*|data:|https?:/);
  expect(res.headers.get('x-frame-options'), what).toBe('DENY');
  expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
  // Not no-referrer: with it a browser sends `Origin: null` on a same-origin POST, which the adapter's
  // origin guard refuses. same-origin sends nothing (no magic-link token) to any other origin.
  expect(res.headers.get('referrer-policy'), what).toBe('same-origin');
}

describe('demo pages: security headers', () => {
  it('/ and /verify-magiclink (with a token in the query) send the CSP, X-Frame-Options, nosniff and Referrer-Policy', async () => {
    const { app } = await demo();
    for (const path of ['/', '/?next=%2Fapp', '/verify-magiclink?token=abc']) {
      const res = await app.request(path);
      expect(res.status, path).toBe(200);
      expectPageHeaders(res, path);
    }
  });

  it('/app (signed in) and the 403 page of /admin send them too', async () => {
    const { app } = await demo();
    const cookie = await signedIn(app, 'headers@example.com');
    const page = await app.request('/app', { headers: { cookie } });
    expect(page.status).toBe(200);
    expectPageHeaders(page, '/app');
    const forbidden = await app.request('/admin', { headers: { cookie } });
    expect(forbidden.status).toBe(403);
    expectPageHeaders(forbidden, '403 page');
  });

  it('static files are nosniff; the redirect to the login page and JSON answers cannot be framed either', async () => {
    const { app } = await demo();
    for (const path of ['/static/login.js', '/static/styles.css', '/static/webauthn.js']) {
      expect((await app.request(path)).headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    const redirect = await app.request('/app');
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('x-frame-options')).toBe('DENY');
    expect(redirect.headers.get('referrer-policy')).toBe('same-origin');
    expect((await app.request('/auth/users/me')).headers.get('x-frame-options')).toBe('DENY');
  });

  it("keeps the admin console's own (stricter) headers on its answers", async () => {
    const { app } = await demo();
    const consolePage = await app.request('/admin/users');
    expect(consolePage.status).toBe(302); // the console's redirect to signInUrl
    expect(consolePage.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(consolePage.headers.get('cache-control')).toBe('no-store');
  });

  it("the pages hold no inline script, inline style or event-handler attribute (the CSP has no 'unsafe-inline')", () => {
    const dir = join(import.meta.dirname, '..', '..', 'demo', 'public');
    for (const name of readdirSync(dir).filter((n) => /\.(html|js)$/.test(n))) {
      const text = readFileSync(join(dir, name), 'utf8');
      if (name.endsWith('.html')) {
        for (const tag of text.match(/<script\b[^>]*>/g) ?? [])
          expect(tag, name).toMatch(/\bsrc="\/static\/[a-z-]+\.js"/);
        expect(text, name).not.toMatch(/<style\b/);
      }
      // Markup in the pages and in the HTML the scripts build (innerHTML templates).
      expect(text, name).not.toMatch(/<[a-z][^>]*\sstyle\s*=/i);
      expect(text, name).not.toMatch(/<[a-z][^>]*\son[a-z]+\s*=/i);
      expect(text, name).not.toMatch(/javascript:/);
    }
  });
});
