/**
 * Harness of the browser end-to-end suite: `npm start`'s own script
 * (scripts/start.ts) as a process on free ports with a temporary database and
 * the demo's dev delivery, Chromium (scripts/chromium.mjs) driven by playwright-core, the
 * DevTools WebAuthn virtual authenticator, the demo's dev outbox, TOTP codes
 * and screenshots under test/e2e/artifacts/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as OTPAuth from 'otpauth';
import { expect } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { resolveChromium } from '../../scripts/chromium.mjs';
import { BIN, ROOT, freePort, removeDir, start, tempDir, waitForHttp, type Spawned } from '../runtime/processes.js';

export const ARTIFACTS = join(ROOT, 'test/e2e/artifacts');

export interface Stack {
  /** The demo app, e.g. http://localhost:41234 (WebAuthn needs a host name, not an IP). */
  demo: string;
  /** The auth API, e.g. http://127.0.0.1:41235. */
  api: string;
  proc: Spawned;
  stop: () => Promise<void>;
}

/** Stop functions of every stack still running (a hook that timed out never got its `Stack`). */
const running = new Set<() => Promise<void>>();

/** Stops every stack this file started; call it from `afterAll`. */
export async function stopAllStacks(): Promise<void> {
  await Promise.all([...running].map((stop) => stop()));
}

/**
 * Runs scripts/start.ts (what `npm start` runs) in an empty temporary
 * directory, so no `.env` of the checkout leaks in: the API and the demo on
 * free ports, a fresh libSQL file, the relying party `localhost` with the
 * demo's origin, and `ownerEmail` (if given) granted `admin` on verification.
 */
export async function startStack(opts: { ownerEmail?: string; env?: Record<string, string> } = {}): Promise<Stack> {
  const dir = tempDir('e2e');
  const [apiPort, demoPort] = [await freePort(), await freePort()];
  const demo = `http://localhost:${demoPort}`;
  const api = `http://127.0.0.1:${apiPort}`;
  const env: Record<string, string | undefined> = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    NODE_ENV: 'development',
    PORT: String(apiPort),
    DEMO_PORT: String(demoPort),
    DATABASE_URL: `file:${join(dir, 'svc.db')}`,
    RPID: 'localhost',
    ORIGINS: demo,
    // One browser on loopback makes every request: keep the global limiter out of the way.
    RATE_LIMIT: '10000',
    DELAY_AFTER: '0',
    LOGIN_RESPONSE_FLOOR_MS: '0',
    ...(opts.ownerEmail ? { OWNER_EMAIL: opts.ownerEmail } : {}),
    ...opts.env,
  };
  const proc = start(process.execPath, [...BIN.tsxNode, join(ROOT, 'scripts/start.ts')], { cwd: dir, env });
  const stop = async () => {
    running.delete(stop);
    await proc.stop();
    removeDir(dir);
  };
  running.add(stop);
  try {
    await waitForHttp(`${api}/health/status`, proc, 45_000);
    await waitForHttp(`${demo}/`, proc, 45_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { demo, api, proc, stop };
}

/**
 * Headless Chromium as `npm test` resolves it (CHROMIUM_PATH, PATH, the npm
 * dev dependency, apt-get; never a browser download of playwright's own); a
 * fresh temporary profile per launch. Throws one line saying what to install.
 */
export async function launchChromium(): Promise<Browser> {
  const browser = resolveChromium();
  return chromium.launch({
    executablePath: browser.path,
    headless: true,
    ...(browser.env ? { env: { ...process.env, ...browser.env } } : {}),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * A browser context (its own cookie jar) with one page. `pageErrors` collects
 * every uncaught exception of the demo's scripts and every Content-Security-Policy
 * violation Chromium reports on the console (a blocked script, style or frame;
 * the tests expect none).
 */
export async function newPage(
  browser: Browser,
): Promise<{ context: BrowserContext; page: Page; pageErrors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(`${page.url()}: ${err.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
      pageErrors.push(`${page.url()}: ${message.text()}`);
  });
  return { context, page, pageErrors };
}

/**
 * A platform authenticator on the page through the DevTools WebAuthn domain:
 * CTAP2, resident keys, user verification that always succeeds. The real
 * `navigator.credentials.create/get` run against the API's relying party.
 */
export async function addVirtualAuthenticator(context: BrowserContext, page: Page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  const credentials = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
  return { cdp, authenticatorId, credentials };
}

export interface OutboxEntry {
  kind: string;
  to: string;
  code?: string;
  magicLinkUrl?: string;
  at: string;
}

/**
 * The next message delivered to `to` after `sinceIso`, from the demo's dev
 * outbox (`GET /dev/outbox?to=`). Delivery runs after the adapter's answer, so
 * this polls briefly.
 */
export async function nextMessage(stack: Stack, to: string, sinceIso: string, kind?: string): Promise<OutboxEntry> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const res = await fetch(`${stack.demo}/dev/outbox?to=${encodeURIComponent(to)}`);
    if (res.status === 200) {
      const entry = (await res.json()) as OutboxEntry;
      if (entry.at > sinceIso && (!kind || entry.kind === kind)) return entry;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${kind ?? 'message'} delivered to ${to} after ${sinceIso}`);
}

/**
 * TOTP codes computed from the secret the page shows (SHA-1, 6 digits, 30 s,
 * the authenticator-app defaults the otpauth link carries). The API accepts
 * the steps before, at and after the current one and refuses a step it has
 * already seen, so each code comes from a step newer than the last one used,
 * starting from the previous step (a code that just rolled over, which the
 * drift window is for): three codes fit in one step without waiting. A step
 * more than one ahead of the clock is waited for; so is a step boundary less
 * than 2 s away, so the API sees the same step the code was made for.
 */
export class TotpDevice {
  private readonly totp: OTPAuth.TOTP;
  private lastCounter = -Infinity;
  constructor(secretBase32: string) {
    this.totp = new OTPAuth.TOTP({
      secret: OTPAuth.Secret.fromBase32(secretBase32.replace(/\s+/g, '')),
      algorithm: 'SHA1',
      digits: 6,
      period: 30,
    });
  }
  /** A code that matches none of the steps the API accepts now (to show the error). */
  wrongCode(): string {
    const now = Date.now();
    const near = [-1, 0, 1].map((d) => this.totp.generate({ timestamp: now + d * 30_000 }));
    for (let n = 0; ; n++) {
      const candidate = String(n).padStart(6, '0');
      if (!near.includes(candidate)) return candidate;
    }
  }
  async nextCode(): Promise<string> {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
    if (Date.now() % 30_000 > 28_000) await sleep(30_000 - (Date.now() % 30_000) + 100);
    const current = this.totp.counter({ timestamp: Date.now() });
    const counter = Math.max(current - 1, this.lastCounter + 1);
    if (counter > current + 1) await sleep((counter - 1) * 30_000 - Date.now() + 100);
    this.lastCounter = counter;
    return this.totp.generate({ timestamp: counter * 30_000 + 1_000 });
  }
}

/**
 * The picture of a docs page: `docs/screenshots/<name>.png` with SVC_DOCS_SCREENSHOTS=1 (npm run
 * docs:screenshots), else `test/e2e/artifacts/<name>.png`, so a plain `npm test` leaves the tree clean
 * (names, codes and times differ on every run).
 */
export async function docsScreenshot(
  target: { screenshot(o: { path: string; fullPage?: boolean }): Promise<unknown> },
  name: string,
  fullPage = true,
): Promise<void> {
  const dir = process.env['SVC_DOCS_SCREENSHOTS'] === '1' ? join(ROOT, 'docs/screenshots') : ARTIFACTS;
  mkdirSync(dir, { recursive: true });
  await target.screenshot({ path: join(dir, `${name}.png`), ...(fullPage ? { fullPage } : {}) });
}

/** Saves a full-page screenshot as test/e2e/artifacts/<name>.png (gitignored) for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Waits until the page's notice banner is visible as `kind` (ok / error / info) and shows `text`. */
export async function expectNotice(page: Page, kind: 'ok' | 'error' | 'info', text: string | RegExp): Promise<void> {
  const el = page.locator('#notice');
  const current = async () =>
    (await el.isVisible()) && (await el.getAttribute('class'))?.split(' ').includes(kind)
      ? ((await el.textContent()) ?? '')
      : '';
  if (typeof text === 'string') await expect.poll(current, { timeout: 15_000 }).toBe(text);
  else await expect.poll(current, { timeout: 15_000 }).toMatch(text);
}

/** Creates an account from the sign-in page with the emailed code; ends on /app. */
export async function registerWithEmailCode(stack: Stack, page: Page, email: string): Promise<void> {
  await page.goto(`${stack.demo}/`);
  await page.locator('#step-start').waitFor({ state: 'visible' });
  await page.fill('#email', email);
  const since = new Date().toISOString();
  await page.click('#register');
  await page.locator('#step-code').waitFor({ state: 'visible' });
  const { code } = await nextMessage(stack, email, since, 'otp_email');
  await page.fill('#code', code!);
  await page.click('#code-submit');
  await page.waitForURL(`${stack.demo}/app`);
  await expect.poll(() => page.textContent('#who')).toBe(email);
}

/**
 * Signs in from the sign-in page with an emailed code (no TOTP); ends on /app.
 * `wrongCodeFirst` submits a wrong code before the right one (a real failed sign-in).
 */
export async function signInWithEmailCode(
  stack: Stack,
  page: Page,
  email: string,
  { wrongCodeFirst = false } = {},
): Promise<void> {
  await page.goto(`${stack.demo}/`);
  await page.locator('#step-start').waitFor({ state: 'visible' });
  await page.fill('#email', email);
  await page.click('#continue');
  await page.locator('#step-methods').waitFor({ state: 'visible' });
  const since = new Date().toISOString();
  await page.click('#m-email-otp');
  await page.locator('#step-code').waitFor({ state: 'visible' });
  const { code } = await nextMessage(stack, email, since, 'otp_email');
  if (wrongCodeFirst) {
    await page.fill('#code', code === '000000' ? '111111' : '000000');
    await page.click('#code-submit');
    await expect.poll(async () => (await page.getAttribute('#notice', 'class')) ?? '').toContain('error');
  }
  await page.fill('#code', code!);
  await page.click('#code-submit');
  await page.waitForURL(`${stack.demo}/app`);
  await expect.poll(() => page.textContent('#who')).toBe(email);
}

/** Clicks "Sign out" on the account page; ends on the sign-in page. */
export async function signOut(stack: Stack, page: Page): Promise<void> {
  await page.click('#logout');
  await page.waitForURL(`${stack.demo}/`);
  await page.locator('#step-start').waitFor({ state: 'visible' });
}
