/**
 * Two browsers (two contexts, two cookie jars) against the demo of `npm start`:
 * a magic link opened in the second completes the sign-in waiting in the
 * first; the first lists both sessions and signs the other one out; the admin
 * page refuses a non-admin with a readable page and lets the OWNER_EMAIL
 * account in; the console signs out back to the app. A signed-out visit to the
 * sign-in page logs no console error.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  expectNotice,
  launchChromium,
  newPage,
  nextMessage,
  registerWithEmailCode,
  screenshot,
  signInWithEmailCode,
  signOut,
  startStack,
  stopAllStacks,
  type Stack,
} from './harness.js';

const GRACE = 'grace@e2e.test';
const OWNER = 'owner@e2e.test';

describe('magic link, sessions and admin in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let first: Page;
  let second: Page;
  let pageErrors: () => string[];

  beforeAll(async () => {
    browser = await launchChromium(); // first: no server is started when the browser is missing
    stack = await startStack({ ownerEmail: OWNER });
    const a = await newPage(browser);
    const b = await newPage(browser);
    [first, second] = [a.page, b.page];
    pageErrors = () => [...a.pageErrors, ...b.pageErrors];
  });

  afterEach(() => {
    expect(pageErrors()).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await stopAllStacks();
  });

  const sessionRows = (page: Page) => page.locator('#sessions tr');

  it('loads the sign-in page signed out without a console error: no request fails with 401', async () => {
    const { page, context } = await newPage(browser);
    const consoleErrors: string[] = [];
    const failed: string[] = [];
    // Chromium logs every 4xx/5xx fetch as a console error ("Failed to load resource: … 401").
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    await page.goto(`${stack.demo}/`);
    await page.locator('#step-start').waitFor({ state: 'visible' });
    await page.waitForLoadState('networkidle');
    await context.close();
    expect(failed).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it('signs in by magic link: the link opened in a second browser, the first one continues by itself', async () => {
    await registerWithEmailCode(stack, first, GRACE);
    await signOut(stack, first);

    await first.fill('#email', GRACE);
    await first.click('#continue');
    await first.locator('#step-methods').waitFor({ state: 'visible' });
    const since = new Date().toISOString();
    await first.click('#m-magic-link');
    await first.locator('#step-link').waitFor({ state: 'visible' });
    await screenshot(first, '09-magic-link-waiting');

    const { magicLinkUrl } = await nextMessage(stack, GRACE, since, 'magic_link_email');
    expect(magicLinkUrl).toMatch(new RegExp(`^${stack.demo}/verify-magiclink\\?token=`));
    // number_match (the default): the first browser shows a number, the link's page asks for it.
    const number = (await first.textContent('#link-number-value'))!.trim();
    expect(number).toMatch(/^[1-9]\d$/);
    await second.goto(magicLinkUrl!);
    await second.locator('#confirm').waitFor({ state: 'visible' });
    await expect(second.locator('#choices button').count()).resolves.toBe(3);
    await screenshot(second, '10-magic-link-pick-number');
    await second.locator('#choices button', { hasText: number }).click();
    await expect.poll(() => second.textContent('#title')).toBe('Sign-in confirmed');
    await expectNotice(second, 'ok', 'Link confirmed.');
    // The token leaves the address bar once used.
    expect(second.url()).toBe(`${stack.demo}/verify-magiclink`);
    await screenshot(second, '10-magic-link-confirmed');

    // The second browser holds no session; the first browser's poll picks it up and goes to the account page.
    expect((await second.context().cookies(stack.demo)).map((c) => c.name)).toEqual([]);
    await first.waitForURL(`${stack.demo}/app`, { timeout: 20_000 });
    await expect.poll(() => first.textContent('#who')).toBe(GRACE);

    // A used link cannot be used again.
    await second.goto(magicLinkUrl!);
    await expect.poll(() => second.textContent('#title')).toBe('This link cannot be used');
    await expectNotice(second, 'error', /^This sign-in link is invalid, used or expired/);
    await screenshot(second, '11-magic-link-used');
  });

  it('lists both sessions and signs the other browser out', async () => {
    await signInWithEmailCode(stack, second, GRACE);
    await first.reload();
    await expect.poll(() => sessionRows(first).count()).toBe(2);
    await expect(first.locator('#sessions tr', { hasText: 'this device' }).count()).resolves.toBe(1);
    // Readable device names (parsed by the adapter with bowser), not raw User-Agent strings.
    expect(await first.locator('#sessions tr td:first-child').allTextContents()).toEqual([
      expect.stringMatching(/^Chrome \d+ on Linux/),
      expect.stringMatching(/^Chrome \d+ on Linux/),
    ]);
    await screenshot(first, '12-sessions');

    await first.click('#sessions [data-revoke]');
    await expectNotice(first, 'ok', 'Session signed out.');
    await expect.poll(() => sessionRows(first).count()).toBe(1);

    // The revoked browser: its account page finds the session gone and returns to sign-in.
    await second.goto(`${stack.demo}/app`);
    await second.waitForURL(`${stack.demo}/?next=%2Fapp`);
    await second.locator('#step-start').waitFor({ state: 'visible' });
    expect((await second.context().request.get(`${stack.demo}/auth/users/me`)).status()).toBe(401);
    // The first browser is unaffected.
    expect((await first.context().request.get(`${stack.demo}/auth/users/me`)).status()).toBe(200);
  });

  it('refuses the admin page to a non-admin with a readable page', async () => {
    await expect(first.locator('#admin-link').isVisible()).resolves.toBe(false);
    const res = await first.goto(`${stack.demo}/admin`);
    expect(res!.status()).toBe(403);
    await expect.poll(() => first.textContent('h1')).toBe('You do not have access to this page');
    expect(await first.textContent('body')).not.toContain('"error"');
    await screenshot(first, '13-admin-forbidden');
    // The admin API behind the page refuses too.
    expect((await first.context().request.get(`${stack.demo}/auth/admin/users`)).status()).toBe(403);
  });

  it('lets the OWNER_EMAIL account into the admin page', async () => {
    await registerWithEmailCode(stack, second, OWNER);
    await second.locator('#admin-link').waitFor({ state: 'visible' });
    await second.click('#admin-link');
    await second.waitForURL(`${stack.demo}/admin`);
    await expect.poll(() => second.textContent('h1')).toBe('Sign-in health');
    await second.goto(`${stack.demo}/admin/users`);
    await expect.poll(() => second.locator('#users-table tbody tr').count()).toBe(2);
    expect(await second.textContent('#users-table')).toContain(GRACE);
    await screenshot(second, '14-admin');

    // The console's way back: a link to the app, and Sign out, which ends the session and lands in the app.
    await expect(second.getAttribute('#back-to-app', 'href')).resolves.toBe('/app');
    await expect(second.locator('#back-to-app').isVisible()).resolves.toBe(true);
    await expect(second.locator('#sign-out').isVisible()).resolves.toBe(true);
    await second.click('#sign-out');
    await second.waitForURL(`${stack.demo}/?next=%2Fapp`);
    await second.locator('#step-start').waitFor({ state: 'visible' });
    expect((await second.context().request.get(`${stack.demo}/auth/users/me`)).status()).toBe(401);
    await second.goto(`${stack.demo}/admin`);
    await second.waitForURL(`${stack.demo}/?next=%2Fadmin`);
  });
});
