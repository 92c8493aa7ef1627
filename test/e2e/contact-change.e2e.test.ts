/**
 * Changing email from the demo's account page (docs/contact-change.md): the
 * code goes to the new address (the dev outbox), the change happens once it
 * is entered, and the old address gets the notice. Saves the code step as
 * docs/screenshots/contact-change.png (with SVC_DOCS_SCREENSHOTS=1).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  expectNotice,
  launchChromium,
  newPage,
  nextMessage,
  registerWithEmailCode,
  startStack,
  stopAllStacks,
  type Stack,
  docsScreenshot,
} from './harness.js';

describe('change email on the account page in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let pageErrors: () => string[];

  beforeAll(async () => {
    browser = await launchChromium();
    stack = await startStack();
    const p = await newPage(browser);
    page = p.page;
    pageErrors = () => p.pageErrors;
  });

  afterEach(() => {
    expect(pageErrors()).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await stopAllStacks();
  });

  it('sends a code to the new address, changes on it, and tells the old address', async () => {
    const oldEmail = `ada-${Date.now()}@e2e.test`;
    const newEmail = `ada.new-${Date.now()}@e2e.test`;
    await registerWithEmailCode(stack, page, oldEmail);

    await page.locator('#contact-change').scrollIntoViewIfNeeded();
    await page.fill('#contact-value', newEmail);
    const since = new Date().toISOString();
    await page.click('#contact-form button[type="submit"]');
    await page.locator('#contact-verify').waitFor({ state: 'visible' });
    await expectNotice(page, 'info', `We sent a code to ${newEmail}. Enter it to confirm the change.`);
    const { code } = await nextMessage(stack, newEmail, since, 'contact_change_email');
    await page.fill('#contact-code', code!);

    await docsScreenshot(page, 'contact-change');

    await page.click('#contact-verify button[type="submit"]');
    await expectNotice(page, 'ok', `Changed to ${newEmail}.`);
    await expect.poll(() => page.textContent('#who')).toBe(newEmail);
    const notice = await nextMessage(stack, oldEmail, since, 'contact_change_notice_email');
    expect(notice.to).toBe(oldEmail);
  });
});
