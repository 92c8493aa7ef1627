/**
 * The devices page in a real browser (docs/devices.md): three browsers
 * (Chrome on Windows, Safari on an iPhone, Firefox on Linux), each behind an
 * edge that names its place in `cf-ipcity`/`cf-ipcountry` (the stack runs with
 * `CLIENT_PLACE_HEADER=cf-ipcity,cf-ipcountry`, which the demo's adapter
 * forwards as `x-svc-client-geo`), sign in to one account. The account page
 * lists them with browser, OS, place and sign-in method, signs one out, then
 * "everywhere else". Saves docs/screenshots/devices.png (with SVC_DOCS_SCREENSHOTS=1).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectNotice,
  launchChromium,
  registerWithEmailCode,
  signInWithEmailCode,
  startStack,
  stopAllStacks,
  type Stack,
  docsScreenshot,
} from './harness.js';

const EMAIL = 'devices@e2e.test';
const BROWSERS = {
  windows: {
    userAgent:
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    place: { 'cf-ipcity': 'Paris', 'cf-ipcountry': 'FR' },
  },
  iphone: {
    userAgent:
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1',
    place: { 'cf-ipcity': 'Lyon', 'cf-ipcountry': 'FR' },
  },
  linux: {
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
    place: { 'cf-ipcity': 'Berlin', 'cf-ipcountry': 'DE' },
  },
};

describe('devices page in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  const pages: Record<keyof typeof BROWSERS, Page> = {} as never;

  async function open(name: keyof typeof BROWSERS): Promise<Page> {
    const { userAgent, place } = BROWSERS[name];
    const context = await browser.newContext({
      viewport: { width: 1100, height: 800 },
      userAgent,
      extraHTTPHeaders: place,
    });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => pageErrors.push(`${page.url()}: ${err.message}`));
    return page;
  }

  beforeAll(async () => {
    browser = await launchChromium();
    stack = await startStack({ env: { CLIENT_PLACE_HEADER: 'cf-ipcity,cf-ipcountry' } });
    pages.windows = await open('windows');
    pages.iphone = await open('iphone');
    pages.linux = await open('linux');
  });

  afterAll(async () => {
    await browser?.close();
    await stopAllStacks();
  });

  const rows = (page: Page) => page.locator('#sessions tr');

  it('lists every device with browser, OS, place, sign-in method, and marks this one', async () => {
    await registerWithEmailCode(stack, pages.windows, EMAIL);
    await signInWithEmailCode(stack, pages.iphone, EMAIL);
    await signInWithEmailCode(stack, pages.linux, EMAIL);
    await pages.windows.reload();
    await expect.poll(() => rows(pages.windows).count()).toBe(3);
    const text = (await rows(pages.windows).allTextContents()).join('\n');
    expect(text).toMatch(
      /Chrome 131 on Windows 10\s*this device\s*Paris, FR · (new account|email code) · last used now/,
    );
    expect(text).toMatch(/Safari 17 on iOS 17\s*Lyon, FR · email code · last used/);
    expect(text).toMatch(/Firefox 133 on Linux\s*Berlin, DE · email code · last used/);
    await docsScreenshot(pages.windows.locator('#devices'), 'devices', false);
    expect(pageErrors).toEqual([]);
  });

  it('signs one device out, then every other one', async () => {
    await rows(pages.windows).filter({ hasText: 'Firefox' }).locator('[data-revoke]').click();
    await expectNotice(pages.windows, 'ok', 'Session signed out.');
    await expect.poll(() => rows(pages.windows).count()).toBe(2);
    await pages.windows.click('#revoke-others');
    await expectNotice(pages.windows, 'ok', 'Signed out 1 other session(s).');
    await expect.poll(() => rows(pages.windows).count()).toBe(1);
    for (const gone of [pages.iphone, pages.linux])
      expect((await gone.context().request.get(`${stack.demo}/auth/users/me`)).status()).toBe(401);
    expect((await pages.windows.context().request.get(`${stack.demo}/auth/users/me`)).status()).toBe(200);
    expect(pageErrors).toEqual([]);
  });
});
