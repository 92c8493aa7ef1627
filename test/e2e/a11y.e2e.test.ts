/**
 * Accessibility of the demo and the admin console in Chromium (docs/accessibility.md):
 * axe-core's WCAG 2.1 A/AA rules over every page state of the demo (each
 * sign-in step, MFA, magic link, account, step-up, passkey and TOTP
 * enrolment, the 403 page) and every console screen, with 0 violations; each
 * state also reflows at 320 CSS px (no horizontal scrolling of the page), and
 * at 640 px the console's sidebar is a top bar that leaves the first screen
 * to the page. A keyboard-only journey (no clicks) signs up, signs out, signs
 * in with an email code and then with the TOTP step, checking where focus
 * lands after each step change. Screenshots of each state go to
 * test/e2e/artifacts/a11y-*.png; with SVC_DOCS_SCREENSHOTS=1 the console at 640 px
 * also goes to docs/screenshots/accessibility.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagePage } from '../../adapter/admin-console/message-page.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { check, expectAttributes, expectFocus, focused, tabTo } from './a11y-checks.js';
import { ROOT } from '../runtime/processes.js';
import {
  TotpDevice,
  addVirtualAuthenticator,
  expectNotice,
  launchChromium,
  nextMessage,
  registerWithEmailCode,
  screenshot,
  startStack,
  stopAllStacks,
  type Stack,
} from './harness.js';

const OWNER = 'owner@a11y.test';
/** Long on purpose: the account page's header shows it, and must still reflow at 320 px. */
const WALKER = 'walkerwithaverylongaddress@a11y.test';
const KEYS = 'keys@a11y.test';
/** Where the console's top bar must end at 640 × 400 px (a quarter of the screen). */
const TOP_BAR_MAX_PX = 100;
/** With SVC_DOCS_SCREENSHOTS=1 (npm run docs:screenshots does the console's), the picture of docs/accessibility.md. */
const DOCS_PNG = process.env['SVC_DOCS_SCREENSHOTS'] === '1' ? join(ROOT, 'docs/screenshots/accessibility.png') : null;

describe('accessibility of the demo and the admin console', () => {
  let stack: Stack;
  let browser: Browser;
  let receiver: WebhookReceiver;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    // Every browser here shares one loopback IP, and the per-IP code limits would refuse the fourth account's
    // codes: this file is about the pages, not the limits (the conformance and API suites hold those).
    stack = await startStack({ ownerEmail: OWNER, env: { DISABLE_AUTH_RATE_LIMITS: 'true' } });
    receiver = await startReceiver((_req, res) => {
      res.writeHead(500).end();
    });
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await stopAllStacks();
  });

  /**
   * A context of its own. The pages' CSP (script-src 'self') refuses the inline
   * axe script, so this context bypasses CSP; the other e2e files hold the CSP.
   */
  async function openPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 }, bypassCSP: true });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => pageErrors.push(`${page.url()}: ${err.message}`));
    return page;
  }

  it('demo: every sign-in, MFA, magic-link and account state has no WCAG 2.1 AA violation and reflows at 320 px', async () => {
    const findings: string[] = [];
    const page = await openPage();
    await addVirtualAuthenticator(page.context(), page);

    // The notice is a live region before any message: rendered (not display:none) and empty.
    await page.goto(`${stack.demo}/`);
    await page.locator('#step-start').waitFor({ state: 'visible' });
    const region = await page.evaluate(() => {
      const el = document.querySelector('#notice')!;
      return { role: el.getAttribute('role'), display: getComputedStyle(el).display, text: el.textContent };
    });
    if (region.role !== 'status' || region.display === 'none' || region.text !== '')
      findings.push(`sign-in start: the notice is not an empty, rendered live region: ${JSON.stringify(region)}`);
    await check(page, 'sign-in start', findings);

    // Sign-up: the code step, a wrong code (an alert, the field marked), then the right one.
    await page.fill('#email', WALKER);
    let since = new Date().toISOString();
    await page.click('#register');
    await page.locator('#step-code').waitFor({ state: 'visible' });
    await check(page, 'sign-up code sent', findings);
    const { code } = await nextMessage(stack, WALKER, since, 'otp_email');
    await page.fill('#code', code === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA');
    await page.click('#code-submit');
    await expectNotice(page, 'error', 'That code is not valid or has expired.');
    await expectAttributes(
      page,
      '#notice [role="alert"]',
      { text: 'That code is not valid or has expired.' },
      findings,
    );
    await expectAttributes(page, '#code', { 'aria-invalid': 'true', 'aria-describedby': 'notice' }, findings);
    await check(page, 'sign-up code error', findings);
    await page.fill('#code', code!);
    await page.click('#code-submit');
    await page.waitForURL(`${stack.demo}/app`);
    await expect.poll(() => page.textContent('#who')).toBe(WALKER);
    await check(page, 'account', findings);

    // Passkey enrolment (the virtual authenticator), then TOTP behind the passkey step-up.
    await page.click('#add-passkey');
    await expectNotice(page, 'ok', 'Passkey added. You can now sign in with it.');
    await check(page, 'account with a passkey', findings);
    await page.click('#totp-start');
    await page.locator('#stepup').waitFor({ state: 'visible' });
    await check(page, 'account step-up', findings);
    await page.click('#stepup-passkey');
    await page.locator('#totp-enroll').waitFor({ state: 'visible' });
    const totp = new TotpDevice((await page.textContent('#totp-secret'))!);
    await check(page, 'account TOTP enrolment', findings);
    await page.fill('#totp-code', totp.wrongCode());
    await page.click('#totp-verify button');
    await expectNotice(page, 'error', 'That authenticator code is not valid.');
    await expectAttributes(page, '#totp-code', { 'aria-invalid': 'true', 'aria-describedby': 'notice' }, findings);
    await check(page, 'account TOTP error', findings);
    await page.fill('#totp-code', await totp.nextCode());
    await page.click('#totp-verify button');
    await expectNotice(page, 'ok', /Authenticator app turned on/);
    await expectAttributes(page, '#totp-code', { 'aria-invalid': null, 'aria-describedby': null }, findings);
    await page.click('#recovery-generate');
    await page.locator('#recovery-new').waitFor({ state: 'visible' });
    await check(page, 'account recovery codes', findings);
    await page.click('#recovery-done');

    // Sign out, then the methods step and a magic link (number match) with the TOTP step after it.
    await page.click('#logout');
    await page.waitForURL(`${stack.demo}/`);
    await page.fill('#email', WALKER);
    await page.click('#continue');
    await page.locator('#step-methods').waitFor({ state: 'visible' });
    await expectFocus(page, '#methods-title', findings);
    // "Use another email" is a step change too; then back to the methods.
    await page.click('#step-methods [data-back]');
    await expectFocus(page, '#start-title', findings);
    await page.click('#continue');
    await page.locator('#step-methods').waitFor({ state: 'visible' });
    await check(page, 'sign-in methods', findings);
    since = new Date().toISOString();
    await page.click('#m-magic-link');
    await page.locator('#step-link').waitFor({ state: 'visible' });
    await expectFocus(page, '#link-title', findings);
    await check(page, 'magic link sent', findings);
    const { magicLinkUrl } = await nextMessage(stack, WALKER, since, 'magic_link_email');
    const number = (await page.textContent('#link-number-value'))!.trim();
    const other = await openPage();
    await other.goto(magicLinkUrl!);
    await other.locator('#confirm').waitFor({ state: 'visible' });
    await check(other, 'magic link pick the number', findings);
    await other.locator('#choices button', { hasText: number }).click();
    await expect.poll(() => other.textContent('#title')).toBe('Sign-in confirmed');
    await expectFocus(other, '#title', findings);
    await check(other, 'magic link confirmed', findings);
    await other.goto(magicLinkUrl!);
    await expect.poll(() => other.textContent('#title')).toBe('This link cannot be used');
    await check(other, 'magic link refused', findings);
    await page.locator('#step-mfa').waitFor({ state: 'visible', timeout: 20_000 });
    await expectFocus(page, '#mfa-title', findings);
    await check(page, 'MFA step', findings);
    await page.fill('#mfa-code', totp.wrongCode());
    await page.click('#mfa-submit');
    await expectNotice(page, 'error', 'That authenticator code is not valid.');
    await expectAttributes(page, '#mfa-code', { 'aria-invalid': 'true', 'aria-describedby': 'notice' }, findings);
    await check(page, 'MFA step error', findings);
    await page.click('#mfa-switch');
    await page.locator('#mfa-recovery-form').waitFor({ state: 'visible' });
    await expectFocus(page, '#mfa-recovery-code', findings);
    await check(page, 'MFA step recovery code', findings);
    await page.click('#mfa-switch');
    await page.fill('#mfa-code', await totp.nextCode());
    await page.click('#mfa-submit');
    await page.waitForURL(`${stack.demo}/app`);

    // Signed in: the sign-in page says so; the admin area is a 403 page; the contact-change report page.
    await page.goto(`${stack.demo}/`);
    await page.locator('#step-signed-in').waitFor({ state: 'visible' });
    await check(page, 'sign-in page when signed in', findings);
    await page.goto(`${stack.demo}/admin`);
    await expect.poll(() => page.textContent('h1')).toBe('You do not have access to this page');
    await check(page, 'admin 403 page', findings);
    await page.goto(`${stack.demo}/contact-change/report`);
    await check(page, 'contact-change report', findings);

    expect(findings.join('\n')).toBe('');
    expect(pageErrors).toEqual([]);
  });

  it('keyboard only: sign-up, sign-out, sign-in with an email code and with the TOTP step; focus lands on each new step', async () => {
    const page = await openPage();
    // Sign-up: the page opens with focus in the email field.
    await page.goto(`${stack.demo}/`);
    await expect.poll(() => focused(page)).toBe('#email');
    await page.keyboard.type(KEYS);
    await tabTo(page, '#register');
    let since = new Date().toISOString();
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('#code-title');
    expect(await page.textContent('#code-title')).toBe('Confirm your email');
    let { code } = await nextMessage(stack, KEYS, since, 'otp_email');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('#code');
    await page.keyboard.type(code!);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${stack.demo}/app`);
    await expect.poll(() => page.textContent('#who')).toBe(KEYS);

    // Sign-out: back on the sign-in page with focus in the email field.
    const signOut = async () => {
      await tabTo(page, '#logout');
      await page.keyboard.press('Enter');
      await page.waitForURL(`${stack.demo}/`);
      await expect.poll(() => focused(page)).toBe('#email');
    };
    await signOut();

    // Sign-in with an email code: Enter in the email field continues; each step's heading takes focus.
    const signInWithCode = async () => {
      await page.keyboard.type(KEYS);
      await page.keyboard.press('Enter');
      await expect.poll(() => focused(page)).toBe('#methods-title');
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('#m-email-otp');
      since = new Date().toISOString();
      await page.keyboard.press('Enter');
      await expect.poll(() => focused(page)).toBe('#code-title');
      expect(await page.textContent('#code-title')).toBe('Enter your code');
      ({ code } = await nextMessage(stack, KEYS, since, 'otp_email'));
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('#code');
      await page.keyboard.type(code!);
      await page.keyboard.press('Enter');
    };
    await signInWithCode();
    await page.waitForURL(`${stack.demo}/app`);

    // Turn on TOTP from the keyboard: the code field takes focus when the secret is shown.
    await tabTo(page, '#totp-start');
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('#totp-code');
    const totp = new TotpDevice((await page.textContent('#totp-secret'))!);
    await page.keyboard.type(await totp.nextCode());
    await page.keyboard.press('Enter');
    await expectNotice(page, 'ok', /Authenticator app turned on/);
    await signOut();

    // Sign-in with the TOTP step: its heading takes focus, the code field is next.
    await signInWithCode();
    await expect.poll(() => focused(page)).toBe('#mfa-title');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('#mfa-code');
    await page.keyboard.type(await totp.nextCode());
    await page.keyboard.press('Enter');
    await page.waitForURL(`${stack.demo}/app`);
    await expect.poll(() => page.textContent('#who')).toBe(KEYS);
    await signOut();
    expect(pageErrors).toEqual([]);
  });

  it('console: every screen has no WCAG 2.1 AA violation, reflows at 320 px, and at 640 px the sidebar is a top bar', async () => {
    const findings: string[] = [];
    const admin = await openPage();
    await admin.setViewportSize({ width: 1280, height: 860 });
    await registerWithEmailCode(stack, admin, OWNER);
    const api = (method: string, path: string, body?: unknown) =>
      admin.evaluate(
        async ([m, p, b]) => {
          const res = await fetch(`/admin/api${p}`, {
            method: m,
            headers: b === undefined ? {} : { 'content-type': 'application/json' },
            body: b === undefined ? undefined : JSON.stringify(b),
          });
          return { status: res.status, body: await res.json().catch(() => null) };
        },
        [method, path, body] as const,
      );
    // Something on every screen: an organization with a member, a failing webhook endpoint.
    const walker = (await api('GET', `/admin/users?search=${encodeURIComponent(WALKER)}`)).body.users[0];
    const org = await api('POST', '/admin/organizations', { name: 'Acme Research', slug: 'acme-research' });
    expect(org.status).toBe(201);
    const orgId = org.body.organization.id as string;
    expect(
      (await api('POST', `/admin/organizations/${orgId}/members`, { userId: walker.id, roles: ['member'] })).status,
    ).toBe(201);
    expect((await api('POST', '/admin/webhooks', { url: receiver.url, eventTypes: ['*'] })).status).toBe(201);

    /** The console checks: axe, 320 px, and the top bar at 640 × 400. */
    const checkConsole = async (state: string) => {
      await check(admin, `console ${state}`, findings);
      const before = admin.viewportSize()!;
      await admin.setViewportSize({ width: 640, height: 400 });
      const layout = await admin.evaluate(() => ({
        side: document.querySelector('.side')?.getBoundingClientRect().height ?? 0,
        heading: document.querySelector('main h1')?.getBoundingClientRect().top ?? Infinity,
      }));
      if (layout.side > TOP_BAR_MAX_PX || layout.heading > TOP_BAR_MAX_PX + 40)
        findings.push(
          `console ${state}: at 640 × 400 the sidebar is ${layout.side} px tall and the heading starts at ${layout.heading} px`,
        );
      if (state === 'users') await screenshot(admin, 'a11y-console-640');
      await admin.setViewportSize(before);
    };
    const screens: [string, string][] = [
      ['health', '/admin'],
      ['users', '/admin/users'],
      ['user detail', `/admin/users/${walker.id}`],
      ['sessions', '/admin/sessions'],
      ['events', '/admin/events'],
      ['organizations', '/admin/organizations'],
      ['organization detail', `/admin/organizations/${orgId}`],
      ['providers', '/admin/providers'],
      ['config', '/admin/config'],
      ['webhooks', '/admin/webhooks'],
    ];
    for (const [state, path] of screens) {
      await admin.goto(`${stack.demo}${path}`);
      if (state === 'health') await expect.poll(() => admin.getAttribute('html', 'data-charts-ready')).toBe('3');
      await checkConsole(state);
    }

    expect(findings.join('\n')).toBe('');

    // The menu of the top bar opens and closes from the keyboard.
    await admin.setViewportSize({ width: 640, height: 400 });
    await admin.goto(`${stack.demo}/admin/users`);
    expect(await admin.isVisible('.side nav')).toBe(false);
    // The picture of docs/accessibility.md (viewport only: the first screen is the point).
    if (DOCS_PNG) {
      mkdirSync(join(ROOT, 'docs/screenshots'), { recursive: true });
      await admin.screenshot({ path: DOCS_PNG });
    }
    await tabTo(admin, '#nav-toggle');
    await admin.keyboard.press('Enter');
    expect(await admin.getAttribute('#nav-toggle', 'aria-expanded')).toBe('true');
    expect(await admin.isVisible('.side nav a[href="/admin/sessions"]')).toBe(true);
    await check(admin, 'console menu open at 640 px', findings);
    await admin.keyboard.press('Enter');
    expect(await admin.isVisible('.side nav')).toBe(false);
    await admin.setViewportSize({ width: 1280, height: 860 });

    // States within screens: a validation error next to a config field, the confirm and step-up dialogs.
    await admin.goto(`${stack.demo}/admin/config`);
    await admin.fill('#cfg-access_token_ttl', 'soon');
    await admin.click('#config-save');
    await expectNotice(admin, 'error', /Not saved: .*See the highlighted fields\./);
    expect(await admin.locator('#notice [role="alert"]').count()).toBe(1);
    await expectAttributes(
      admin,
      '#cfg-access_token_ttl',
      { 'aria-invalid': 'true', 'aria-describedby': 'hint-access_token_ttl error-access_token_ttl' },
      findings,
    );
    await checkConsole('config with an error');
    await admin.goto(`${stack.demo}/admin/users/${walker.id}`);
    await admin.click('#user-sessions tbody tr button[data-api]');
    await admin.locator('#confirm-dialog').waitFor({ state: 'visible' });
    await check(admin, 'console confirm dialog', findings);
    await admin.keyboard.press('Escape');
    await admin.evaluate(() => (document.querySelector('#step-up-dialog') as HTMLDialogElement).showModal());
    await check(admin, 'console step-up dialog', findings);
    await admin.keyboard.press('Escape');

    // The console's own 403 page (the demo shows its own in its place: checked above), as the package renders it.
    await admin.setContent(messagePage('svc demo admin', '/admin', 403).toString(), { waitUntil: 'load' });
    await check(admin, 'console 403 page', findings);

    expect(findings.join('\n')).toBe('');
    expect(pageErrors).toEqual([]);
  });
});
