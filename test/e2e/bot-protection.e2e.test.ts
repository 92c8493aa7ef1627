/**
 * Bot protection in the demo (docs/bot-protection.md) in Chromium: the API's
 * `bot_protection` names Turnstile with Cloudflare's always-passes test site
 * key, its secret is a test secret, and `siteverifyUrl` is the local
 * siteverify stand-in (test/helpers/siteverify-stand-in.ts; allowed outside
 * production).
 *
 * The widget script is a STAND-IN (test/e2e/turnstile-stand-in.ts), served
 * with `page.route` at the real URL: the sandbox has no internet, so
 * https://challenges.cloudflare.com/turnstile/v0/api.js cannot load here. It
 * mimics Turnstile's explicit-render API as the demo uses it (`render`,
 * `reset`, `remove`, `getResponse`), draws a box like the real widget and
 * hands out Cloudflare's documented dummy token `XXXX.DUMMY.TOKEN.XXXX`. The
 * URL is intercepted, not changed, so the demo's Content-Security-Policy is
 * what lets it load (any CSP violation fails the test).
 *
 * Cases: sign-up and sign-in with an email code complete, each guarded call
 * carrying a fresh token the API posted to siteverify; with the always-fails
 * secret the demo shows its `challenge_failed` message and no code is sent;
 * a widget script that cannot load leaves the page usable; the CSP names
 * challenges.cloudflare.com only while Turnstile is on. The sign-in page with
 * the widget is saved to test/e2e/artifacts/bot-protection.png, and with
 * SVC_DOCS_SCREENSHOTS=1 also to docs/screenshots/bot-protection.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  TURNSTILE_DUMMY_TOKEN,
  TURNSTILE_FAIL_SECRET,
  TURNSTILE_PASS_SECRET,
  TURNSTILE_TEST_SITE_KEY,
  startSiteverifyStandIn,
  type SiteverifyStandIn,
} from '../helpers/siteverify-stand-in.js';
import {
  expectNotice,
  launchChromium,
  screenshot,
  newPage,
  nextMessage,
  signOut,
  startStack,
  stopAllStacks,
  type Stack,
} from './harness.js';
import { TURNSTILE_SCRIPT_URL, TURNSTILE_STAND_IN_SCRIPT } from './turnstile-stand-in.js';

const ROOT = join(import.meta.dirname, '../..');
const TURNSTILE_ORIGIN = 'https://challenges.cloudflare.com';
/** The committed PNG is rewritten only on request, like the other docs screenshots. */
const DOCS_PNG = process.env['SVC_DOCS_SCREENSHOTS'] === '1' ? join(ROOT, 'docs/screenshots/bot-protection.png') : null;

/** The stack's env: Turnstile with the test site key, the secret in TURNSTILE_SECRET, siteverify local. */
function turnstileEnv(siteverify: SiteverifyStandIn, secret: string): Record<string, string> {
  return {
    TURNSTILE_SECRET: secret,
    BOT_PROTECTION: JSON.stringify({
      provider: 'turnstile',
      siteKey: TURNSTILE_TEST_SITE_KEY,
      secretEnv: 'TURNSTILE_SECRET',
      siteverifyUrl: `${siteverify.url}/siteverify`,
    }),
  };
}

/**
 * Serves the widget stand-in at the real script URL and refuses anything else
 * from Cloudflare (nothing else may be asked for). Counts the script loads.
 */
async function routeTurnstile(page: Page): Promise<{ scriptLoads: () => number; otherRequests: string[] }> {
  let loads = 0;
  const otherRequests: string[] = [];
  await page.route(TURNSTILE_SCRIPT_URL, (route) => {
    loads++;
    return route.fulfill({
      status: 200,
      headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' },
      body: TURNSTILE_STAND_IN_SCRIPT,
    });
  });
  await page.route(
    (url) => url.origin === TURNSTILE_ORIGIN && !TURNSTILE_SCRIPT_URL.test(url.href),
    (route) => {
      otherRequests.push(route.request().url());
      return route.abort();
    },
  );
  return { scriptLoads: () => loads, otherRequests };
}

const widgetBox = (page: Page) => page.locator('#challenge [aria-label="Cloudflare Turnstile (test stand-in)"]');

describe('Turnstile on the demo sign-in page in Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await stopAllStacks();
  });

  describe('always-passes secret', () => {
    let siteverify: SiteverifyStandIn;
    let stack: Stack;
    let page: Page;
    let pageErrors: () => string[];
    let turnstile: Awaited<ReturnType<typeof routeTurnstile>>;

    beforeAll(async () => {
      siteverify = await startSiteverifyStandIn();
      stack = await startStack({ env: turnstileEnv(siteverify, TURNSTILE_PASS_SECRET) });
      const p = await newPage(browser);
      page = p.page;
      pageErrors = () => p.pageErrors;
      turnstile = await routeTurnstile(page);
    });

    afterEach(() => {
      expect(pageErrors()).toEqual([]);
      expect(turnstile.otherRequests).toEqual([]);
    });

    afterAll(async () => {
      await stack?.stop();
      await siteverify?.close();
    });

    it('serves a CSP that lets the widget in from challenges.cloudflare.com, and nothing else from outside', async () => {
      const res = await page.goto(`${stack.demo}/`);
      const csp = res?.headers()['content-security-policy'] ?? '';
      expect(csp).toContain(`script-src 'self' ${TURNSTILE_ORIGIN};`);
      expect(csp).toContain(`frame-src ${TURNSTILE_ORIGIN};`);
      expect(csp).toContain("connect-src 'self';");
      expect(csp).toContain("style-src 'self';");
      expect(csp.replaceAll(TURNSTILE_ORIGIN, '')).not.toMatch(/https?:/);
    });

    it('signs up and signs in with an email code, each guarded call carrying a fresh widget token', async () => {
      const email = 'ada@example.com'; // a fresh database per stack; a fixed address keeps the screenshot stable
      await page.goto(`${stack.demo}/`);
      await page.locator('#step-start').waitFor({ state: 'visible' });
      await page.fill('#email', email);
      let since = new Date().toISOString();
      await page.click('#register');
      await page.locator('#step-code').waitFor({ state: 'visible' });
      await expect.poll(() => widgetBox(page).textContent()).toContain('Success!');
      expect(await page.evaluate(() => (window as any).__turnstileStandIn.renders)).toEqual([
        { sitekey: TURNSTILE_TEST_SITE_KEY, container: '#challenge' },
      ]);
      let { code } = await nextMessage(stack, email, since, 'otp_email');
      await page.fill('#code', code!);
      await page.click('#code-submit');
      await page.waitForURL(`${stack.demo}/app`);
      await expect.poll(() => page.textContent('#who')).toBe(email);
      expect(siteverify.received).toHaveLength(1);

      await signOut(stack, page);
      await page.fill('#email', email);
      await page.click('#continue');
      await page.locator('#step-methods').waitFor({ state: 'visible' });
      // The sign-in page with the widget box, solved, above the method choice.
      await expect.poll(() => widgetBox(page).textContent()).toContain('Success!');
      await expect(widgetBox(page).count()).resolves.toBe(1);
      await screenshot(page, 'bot-protection');
      if (DOCS_PNG) {
        mkdirSync(join(ROOT, 'docs/screenshots'), { recursive: true });
        await page.screenshot({ path: DOCS_PNG, fullPage: true });
      }

      since = new Date().toISOString();
      await page.click('#m-email-otp');
      await page.locator('#step-code').waitFor({ state: 'visible' });
      ({ code } = await nextMessage(stack, email, since, 'otp_email'));
      await page.fill('#code', code!);
      await page.click('#code-submit');
      await page.waitForURL(`${stack.demo}/app`);
      await expect.poll(() => page.textContent('#who')).toBe(email);

      // register, then login and the sign-in code send: three tokens, each posted to siteverify once.
      expect(siteverify.received.map((r) => r.path)).toEqual(['/siteverify', '/siteverify', '/siteverify']);
      for (const r of siteverify.received) {
        expect(r.contentType).toContain('application/x-www-form-urlencoded');
        expect(r.form['response']).toBe(TURNSTILE_DUMMY_TOKEN);
        expect(r.form['secret']).toBe(TURNSTILE_PASS_SECRET);
      }
      expect(turnstile.scriptLoads()).toBeGreaterThanOrEqual(1);
    });
  });

  describe('always-fails secret', () => {
    let siteverify: SiteverifyStandIn;
    let stack: Stack;
    let page: Page;
    let pageErrors: () => string[];
    let turnstile: Awaited<ReturnType<typeof routeTurnstile>>;

    beforeAll(async () => {
      siteverify = await startSiteverifyStandIn();
      stack = await startStack({ env: turnstileEnv(siteverify, TURNSTILE_FAIL_SECRET) });
      const p = await newPage(browser);
      page = p.page;
      pageErrors = () => p.pageErrors;
      turnstile = await routeTurnstile(page);
    });

    afterEach(() => {
      expect(pageErrors()).toEqual([]);
      expect(turnstile.otherRequests).toEqual([]);
    });

    afterAll(async () => {
      await stack?.stop();
      await siteverify?.close();
    });

    it('shows the challenge_failed message and sends no code', async () => {
      const email = `turnstile-refused-${Date.now()}@e2e.test`;
      await page.goto(`${stack.demo}/`);
      await page.locator('#step-start').waitFor({ state: 'visible' });
      await page.fill('#email', email);
      await page.click('#register');
      await expectNotice(page, 'error', 'The check did not pass; please try again.');
      expect(await page.locator('#step-start').isVisible()).toBe(true);
      expect(await page.locator('#step-code').isVisible()).toBe(false);

      await page.click('#continue');
      // The notice already says so from the first refusal: wait for the second call to be refused.
      await expect.poll(() => siteverify.received.length).toBe(2);
      await expectNotice(page, 'error', 'The check did not pass; please try again.');
      await expect.poll(() => page.locator('#continue').isDisabled()).toBe(false);
      expect(await page.locator('#step-methods').isVisible()).toBe(false);

      // Both calls reached siteverify with the widget's token, and were refused before anything was sent.
      expect(siteverify.received.map((r) => r.form['response'])).toEqual([
        TURNSTILE_DUMMY_TOKEN,
        TURNSTILE_DUMMY_TOKEN,
      ]);
      await new Promise((r) => setTimeout(r, 500)); // delivery runs after the answer: give a stray send time to land
      const outbox = await fetch(`${stack.demo}/dev/outbox?to=${encodeURIComponent(email)}`);
      expect(outbox.status).toBe(404);
    });

    it('says the check is missing when the widget script cannot load, and lets the visitor try again', async () => {
      const p = await newPage(browser);
      let attempts = 0;
      await p.page.route(TURNSTILE_SCRIPT_URL, (route) => {
        attempts++;
        return route.abort('internetdisconnected');
      });
      try {
        const email = `turnstile-noscript-${Date.now()}@e2e.test`;
        await p.page.goto(`${stack.demo}/`);
        await p.page.locator('#step-start').waitFor({ state: 'visible' });
        await p.page.fill('#email', email);
        await p.page.click('#register');
        await expectNotice(p.page, 'error', 'Please complete the check above, then try again.');
        await expect.poll(() => p.page.locator('#register').isDisabled()).toBe(false);
        // A second try loads the script again rather than failing on the first failure forever.
        await p.page.click('#register');
        await expect.poll(() => attempts).toBe(2);
        await expect.poll(() => p.page.locator('#register').isDisabled()).toBe(false);
        expect(p.pageErrors).toEqual([]);
        expect(siteverify.received).toHaveLength(2); // the two refusals above; no token, no siteverify call
        const outbox = await fetch(`${stack.demo}/dev/outbox?to=${encodeURIComponent(email)}`);
        expect(outbox.status).toBe(404);
      } finally {
        await p.context.close();
      }
    });
  });

  it('serves the strict CSP, with no Cloudflare origin, while bot protection is off', async () => {
    const stack = await startStack();
    try {
      const res = await fetch(`${stack.demo}/`);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self';");
      expect(csp).not.toContain('challenges.cloudflare.com');
      expect(csp).not.toMatch(/https?:/);
    } finally {
      await stack.stop();
    }
  });
});
