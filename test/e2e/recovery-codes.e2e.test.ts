/**
 * Recovery codes in a real browser, through the demo of `npm start`
 * (docs/recovery-codes.md): turn on an authenticator app, generate codes
 * behind a step-up, see them once with Copy and Download, sign in by email
 * code + a recovery code, and the low-codes warning. With SVC_DOCS_SCREENSHOTS=1
 * in the environment it rewrites docs/screenshots/recovery-codes.png.
 * The tests run in order and share the browser state, as a person would.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../runtime/processes.js';
import {
  ARTIFACTS,
  TotpDevice,
  expectNotice,
  launchChromium,
  newPage,
  nextMessage,
  registerWithEmailCode,
  screenshot,
  signOut,
  startStack,
  stopAllStacks,
  type Stack,
} from './harness.js';

const EMAIL = 'grace@e2e.test';
const CODE = /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/;
/** The committed docs/screenshots/recovery-codes.png is rewritten only with SVC_DOCS_SCREENSHOTS=1 (the codes differ each run). */
const DOCS_PNG = process.env['SVC_DOCS_SCREENSHOTS'] === '1' ? join(ROOT, 'docs/screenshots/recovery-codes.png') : null;

describe('recovery codes in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: string[];
  let totp: TotpDevice;
  let codes: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    stack = await startStack();
    ({ context, page, pageErrors } = await newPage(browser));
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.demo });
  });

  afterEach(() => {
    expect(pageErrors).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await stopAllStacks();
  });

  it('offers no codes before the account has a second factor', async () => {
    await registerWithEmailCode(stack, page, EMAIL);
    await expect.poll(() => page.textContent('#recovery-status')).toContain('Turn on an authenticator app');
    await expect(page.locator('#recovery-generate').isVisible()).resolves.toBe(false);
  });

  it('generates ten codes behind a step-up and shows them once, with Copy and Download', async () => {
    await page.click('#totp-start');
    await page.locator('#totp-enroll').waitFor({ state: 'visible' });
    totp = new TotpDevice((await page.textContent('#totp-secret'))!);
    await page.fill('#totp-code', await totp.nextCode());
    await page.click('#totp-verify button');
    await expectNotice(page, 'ok', /Authenticator app turned on/);
    await expect.poll(() => page.textContent('#recovery-status')).toContain('No recovery codes yet');

    await page.click('#recovery-generate');
    await page.locator('#stepup').waitFor({ state: 'visible' });
    await page.fill('#stepup-code', await totp.nextCode());
    await page.click('#stepup-form button');
    await page.locator('#recovery-new').waitFor({ state: 'visible' });
    await expectNotice(page, 'ok', /New recovery codes generated/);
    codes = (await page.locator('#recovery-list li').allTextContents()).map((c) => c.trim());
    expect(codes).toHaveLength(10);
    for (const c of codes) expect(c).toMatch(CODE);
    await expect.poll(() => page.textContent('#recovery-status')).toContain('10 of 10');
    await page.locator('#recovery').scrollIntoViewIfNeeded();
    await page.locator('#recovery').screenshot({ path: DOCS_PNG ?? join(ARTIFACTS, 'recovery-codes-card.png') });
    await screenshot(page, 'recovery-codes');

    await page.click('#recovery-copy');
    await expectNotice(page, 'ok', 'Codes copied.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(codes.join('\n'));
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#recovery-download')]);
    expect(download.suggestedFilename()).toBe('localhost-recovery-codes.txt');
    const text = readFileSync((await download.path())!, 'utf8');
    for (const c of codes) expect(text).toContain(c);

    // Dismissed, then reloaded: the codes are nowhere on the page any more.
    await page.click('#recovery-done');
    await expect(page.locator('#recovery-new').isVisible()).resolves.toBe(false);
    await page.reload();
    await expect.poll(() => page.textContent('#recovery-status')).toContain('10 of 10');
    const html = await page.content();
    for (const c of codes) expect(html).not.toContain(c);
  });

  it('signs in with an email code and a recovery code instead of the authenticator', async () => {
    await signOut(stack, page);
    await page.fill('#email', EMAIL);
    await page.click('#continue');
    await page.locator('#step-methods').waitFor({ state: 'visible' });
    const since = new Date().toISOString();
    await page.click('#m-email-otp');
    await page.locator('#step-code').waitFor({ state: 'visible' });
    const { code } = await nextMessage(stack, EMAIL, since, 'otp_email');
    await page.fill('#code', code!);
    await page.click('#code-submit');
    await page.locator('#step-mfa').waitFor({ state: 'visible' });
    await page.click('#mfa-switch');
    await page.locator('#mfa-recovery-form').waitFor({ state: 'visible' });
    await page.fill('#mfa-recovery-code', 'aaaa-bbbb-cccc');
    await page.click('#mfa-recovery-submit');
    await expectNotice(page, 'error', 'That recovery code is not valid or was already used.');
    await screenshot(page, 'recovery-codes-mfa');
    await page.fill('#mfa-recovery-code', codes[0]!.toUpperCase());
    await page.click('#mfa-recovery-submit');
    await page.waitForURL(`${stack.demo}/app`);
    await expect.poll(() => page.textContent('#recovery-status')).toContain('9 of 10');
    await expect(page.locator('#recovery-warning').isVisible()).resolves.toBe(false);
  });

  it('warns when two or fewer codes remain', async () => {
    // The count comes from /auth/users/me; using eight codes would hit the TOTP flow limiter, so the answer is edited.
    await page.route('**/auth/users/me', async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, json: { ...(await res.json()), recoveryCodesRemaining: 2 } });
    });
    await page.reload();
    await expect.poll(() => page.textContent('#recovery-warning')).toContain('Only 2 recovery codes left');
    await expect(page.locator('#recovery-warning').isVisible()).resolves.toBe(true);
    await page.unroute('**/auth/users/me');
  });
});
