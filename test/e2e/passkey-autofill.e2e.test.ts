/**
 * Passkey autofill (conditional UI) in Chromium through the demo on
 * svc-auth/client: after one passkey sign-in, the sign-in page asks the
 * browser with `mediation: "conditional"` and signs in once the passkey is
 * chosen (the virtual authenticator chooses it), with no click on the page.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  addVirtualAuthenticator,
  expectNotice,
  launchChromium,
  newPage,
  registerWithEmailCode,
  signOut,
  startStack,
  stopAllStacks,
  type Stack,
} from './harness.js';

const EMAIL = 'grace@e2e.test';

describe('passkey autofill in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: string[];

  beforeAll(async () => {
    browser = await launchChromium();
    stack = await startStack();
    ({ context, page, pageErrors } = await newPage(browser));
    await addVirtualAuthenticator(context, page);
    // Records the mediation of every WebAuthn request the page makes (sessionStorage survives navigations).
    await page.addInitScript(() => {
      const get = navigator.credentials.get.bind(navigator.credentials);
      navigator.credentials.get = (options?: CredentialRequestOptions) => {
        const seen = JSON.parse(sessionStorage.getItem('mediations') ?? '[]') as string[];
        sessionStorage.setItem('mediations', JSON.stringify([...seen, String(options?.mediation ?? 'optional')]));
        return get(options);
      };
    });
  });

  afterEach(() => {
    expect(pageErrors).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await stopAllStacks();
  });

  it('the page loads the client bundle and signs up, adds a passkey and signs in with it once', async () => {
    const scripts: string[] = [];
    page.on('request', (r) => scripts.push(new URL(r.url()).pathname));
    await registerWithEmailCode(stack, page, EMAIL);
    expect(scripts).toContain('/static/svc-client.js');
    await page.click('#add-passkey');
    await expectNotice(page, 'ok', 'Passkey added. You can now sign in with it.');
    await signOut(stack, page);
    await page.fill('#email', EMAIL);
    await page.click('#continue');
    await page.click('#m-passkey');
    await page.waitForURL(`${stack.demo}/app`);
  });

  it('offers the passkey in autofill when the session has ended, and signs in with no click', async () => {
    // The session ends (cookies gone, as after their lifetime); the sign-in page offers the remembered passkey.
    await context.clearCookies();
    const visited: string[] = [];
    page.on('framenavigated', (f) => f === page.mainFrame() && visited.push(new URL(f.url()).pathname));
    await page.goto(`${stack.demo}/app`);
    // /app redirects to the sign-in page, whose autofill request the virtual authenticator answers → back to /app.
    await expect.poll(() => visited.join(' '), { timeout: 15_000 }).toBe('/ /app');
    await expect.poll(() => page.textContent('#who')).toBe(EMAIL);
    const mediations = JSON.parse((await page.evaluate(() => sessionStorage.getItem('mediations'))) ?? '[]');
    expect(mediations.at(-1)).toBe('conditional');
  });

  it('an explicit sign-out forgets the hint: no autofill request, the form waits', async () => {
    await page.evaluate(() => sessionStorage.removeItem('mediations'));
    await signOut(stack, page);
    await page.reload();
    await page.locator('#step-start').waitFor({ state: 'visible' });
    expect(await page.evaluate(() => sessionStorage.getItem('mediations'))).toBeNull();
    expect(new URL(page.url()).pathname).toBe('/');
  });
});
