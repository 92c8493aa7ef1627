/**
 * One person's account in a real browser, through the demo app of `npm start`:
 * register with an email code, add a passkey, sign out (the protected page and
 * the profile API refuse), sign back in with the passkey, turn on an
 * authenticator app behind a passkey step-up, confirm a sensitive change with
 * an authenticator code, and sign in by email code + authenticator code.
 * The tests run in order and share the browser state, as a person would.
 */
import * as OTPAuth from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  TotpDevice,
  addVirtualAuthenticator,
  launchChromium,
  newPage,
  nextMessage,
  expectNotice,
  screenshot,
  signOut as signOutOf,
  startStack,
  stopAllStacks,
  type Stack,
} from './harness.js';

const EMAIL = 'ada@e2e.test';

describe('account journey in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let authenticator: Awaited<ReturnType<typeof addVirtualAuthenticator>>;
  let totp: TotpDevice;
  let pageErrors: string[];

  beforeAll(async () => {
    browser = await launchChromium(); // first: no server is started when the browser is missing
    stack = await startStack();
    ({ context, page, pageErrors } = await newPage(browser));
    authenticator = await addVirtualAuthenticator(context, page);
  });

  afterEach(() => {
    expect(pageErrors).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await stopAllStacks();
  });

  const cookieNames = async () => (await context.cookies(stack.demo)).map((c) => c.name).sort();

  const signOut = () => signOutOf(stack, page);

  async function signInWithPasskey() {
    await page.fill('#email', EMAIL);
    await page.click('#continue');
    await page.locator('#step-methods').waitFor({ state: 'visible' });
    // A user with a passkey is offered it first (the email methods stay as the default fallback).
    expect((await page.locator('#step-methods button:visible:not(.link)').allTextContents())[0]).toContain(
      'Use a passkey',
    );
    await page.click('#m-passkey');
    await page.waitForURL(`${stack.demo}/app`);
    await expect.poll(() => page.textContent('#who')).toBe(EMAIL);
  }

  it('registers with an email code read from the dev delivery and lands on the account page', async () => {
    await page.goto(`${stack.demo}/`);
    await page.locator('#step-start').waitFor({ state: 'visible' });
    await screenshot(page, '01-sign-in');

    await page.fill('#email', EMAIL);
    const since = new Date().toISOString();
    await page.click('#register');
    await page.locator('#step-code').waitFor({ state: 'visible' });
    expect(await page.textContent('#code-lead')).toContain(EMAIL);
    const message = await nextMessage(stack, EMAIL, since, 'otp_email');
    expect(message.code).toMatch(/^[A-Z]{6}$/);

    // A wrong code first: a readable error, still on the code step.
    await page.fill('#code', message.code === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA');
    await page.click('#code-submit');
    await expectNotice(page, 'error', 'That code is not valid or has expired.');
    await screenshot(page, '02-code-error');

    await page.fill('#code', message.code!);
    await page.click('#code-submit');
    await page.waitForURL(`${stack.demo}/app`);
    await expect.poll(() => page.textContent('#who')).toBe(EMAIL);
    await expect.poll(() => page.locator('#sessions tr').count()).toBe(1);
    expect(await page.textContent('#profile')).toContain('verified');
    expect(await cookieNames()).toEqual(['svc-access', 'svc-refresh']);
    // The browser never sees a token: both cookies are HttpOnly.
    expect((await context.cookies(stack.demo)).every((c) => c.httpOnly)).toBe(true);
    await screenshot(page, '03-account');
  });

  it('comes back through the refresh cookie once the access cookie has expired', async () => {
    // The browser drops svc-access at its Max-Age (the access token TTL); only svc-refresh is left.
    await context.clearCookies({ name: 'svc-access' });
    expect(await cookieNames()).toEqual(['svc-refresh']);
    // requireAuth never refreshes: /app sends the browser to the sign-in page, whose
    // /auth/users/me call refreshes through the adapter and returns to /app.
    await page.goto(`${stack.demo}/app`);
    await page.waitForURL(`${stack.demo}/app`);
    await expect.poll(() => page.textContent('#who')).toBe(EMAIL);
    expect(await cookieNames()).toEqual(['svc-access', 'svc-refresh']);
    // Still the same session (a refresh rotates the token, not the session).
    await expect.poll(() => page.locator('#sessions tr').count()).toBe(1);
  });

  it('enrols a passkey with the virtual authenticator (relying party localhost)', async () => {
    await page.click('#add-passkey');
    await expectNotice(page, 'ok', 'Passkey added. You can now sign in with it.');
    await expect.poll(() => page.locator('#passkeys [data-del]').count()).toBe(1);
    const creds = await authenticator.credentials();
    expect(creds).toHaveLength(1);
    expect(creds[0]!.rpId).toBe('localhost');
    expect(creds[0]!.isResidentCredential).toBe(true);
    await screenshot(page, '04-passkey-added');
  });

  it('signs out: cookies cleared, /app sends the browser to the sign-in page, the profile API answers 401', async () => {
    await signOut();
    expect(await cookieNames()).toEqual([]);

    await page.goto(`${stack.demo}/app`);
    await page.waitForURL(`${stack.demo}/?next=%2Fapp`);
    await page.locator('#step-start').waitFor({ state: 'visible' });

    const profile = await context.request.get(`${stack.demo}/api/profile`);
    expect(profile.status()).toBe(401);
    const me = await context.request.get(`${stack.demo}/auth/users/me`);
    expect(me.status()).toBe(401);
    expect(await me.json()).toEqual({ error: 'unauthorized', message: 'Access session required' });
  });

  it('signs in with the passkey', async () => {
    const before = (await authenticator.credentials())[0]!.signCount;
    await signInWithPasskey();
    expect((await authenticator.credentials())[0]!.signCount).toBeGreaterThan(before);
    await expect.poll(() => page.locator('#passkeys tr').first().textContent()).not.toContain('—');
  });

  it('turns on an authenticator app behind a passkey step-up, with a code computed from the shown secret', async () => {
    await page.click('#totp-start');
    // The user has a passkey, so the change needs a fresh confirmation first.
    await page.locator('#stepup').waitFor({ state: 'visible' });
    await expectNotice(page, 'info', 'Please confirm it is you first.');
    // Only what the user has is offered: a passkey, no authenticator code yet.
    await expect(page.locator('#stepup-passkey').isVisible()).resolves.toBe(true);
    await expect(page.locator('#stepup-form').isVisible()).resolves.toBe(false);
    await screenshot(page, '05-step-up');
    await page.click('#stepup-passkey');

    await page.locator('#totp-enroll').waitFor({ state: 'visible' });
    await expect(page.locator('#stepup').isVisible()).resolves.toBe(false);
    const shown = (await page.textContent('#totp-secret'))!;
    const uri = OTPAuth.URI.parse((await page.getAttribute('#totp-url', 'href'))!) as OTPAuth.TOTP;
    expect(uri).toBeInstanceOf(OTPAuth.TOTP);
    expect([uri.algorithm, uri.digits, uri.period]).toEqual(['SHA1', 6, 30]);
    expect(uri.secret.base32).toBe(shown.replace(/\s+/g, ''));
    await screenshot(page, '06-totp-enrol');

    totp = new TotpDevice(shown);
    await page.fill('#totp-code', totp.wrongCode());
    await page.click('#totp-verify button');
    await expectNotice(page, 'error', 'That authenticator code is not valid.');

    await page.fill('#totp-code', await totp.nextCode());
    await page.click('#totp-verify button');
    await expectNotice(page, 'ok', /Authenticator app turned on/);
    await expect.poll(() => page.textContent('#totp-status')).toContain('on');
    await expect(page.locator('#totp-enroll').isVisible()).resolves.toBe(false);
  });

  it('completes a step-up with an authenticator code to remove the passkey', async () => {
    // A new session is not fresh: sign out and back in with the passkey (no TOTP prompt after a passkey).
    await signOut();
    await signInWithPasskey();

    // Cancel closes the card and removes nothing.
    await page.click('#passkeys [data-del]');
    await page.locator('#stepup').waitFor({ state: 'visible' });
    await page.click('#stepup-cancel');
    await page.locator('#stepup').waitFor({ state: 'hidden' });
    await expect(page.locator('#passkeys [data-del]').count()).resolves.toBe(1);

    await page.click('#passkeys [data-del]');
    await page.locator('#stepup').waitFor({ state: 'visible' });
    await expect(page.locator('#stepup-passkey').isVisible()).resolves.toBe(true);
    await expect(page.locator('#stepup-form').isVisible()).resolves.toBe(true);
    await page.fill('#stepup-code', totp.wrongCode());
    await page.click('#stepup-form button');
    await expectNotice(page, 'error', 'That authenticator code is not valid.');
    await screenshot(page, '07-step-up-error');
    await page.fill('#stepup-code', await totp.nextCode());
    await page.click('#stepup-form button');
    await expectNotice(page, 'ok', 'Passkey removed.');
    await expect.poll(() => page.textContent('#passkeys')).toContain('No passkeys yet.');
    await expect(page.locator('#stepup').isVisible()).resolves.toBe(false);
  });

  it('signs in with an email code followed by an authenticator code', async () => {
    await signOut();
    await page.fill('#email', EMAIL);
    await page.click('#continue');
    await page.locator('#step-methods').waitFor({ state: 'visible' });
    await expect(page.locator('#m-passkey').isVisible()).resolves.toBe(false);
    const since = new Date().toISOString();
    await page.click('#m-email-otp');
    await page.locator('#step-code').waitFor({ state: 'visible' });
    const { code } = await nextMessage(stack, EMAIL, since, 'otp_email');
    await page.fill('#code', code!);
    await page.click('#code-submit');

    await page.locator('#step-mfa').waitFor({ state: 'visible' });
    await screenshot(page, '08-mfa');
    await page.fill('#mfa-code', await totp.nextCode());
    await page.click('#mfa-submit');
    await page.waitForURL(`${stack.demo}/app`);
    await expect.poll(() => page.textContent('#who')).toBe(EMAIL);
  });
});
