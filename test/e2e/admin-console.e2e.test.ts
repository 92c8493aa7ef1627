/**
 * The admin console (svcAdminConsole, mounted by the demo at /admin) in
 * Chromium: the OWNER_EMAIL account searches a user, revokes that user's
 * session (the user's browser is signed out), edits the system config (and
 * sees the API's validation error next to the field), reads the sign-in
 * health charts and filters the auth events. Screenshots go to
 * test/e2e/artifacts/; with SVC_DOCS_SCREENSHOTS=1 (npm run docs:screenshots)
 * each screen is also written to docs/admin-console/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../runtime/processes.js';
import {
  addVirtualAuthenticator,
  expectNotice,
  launchChromium,
  newPage,
  registerWithEmailCode,
  screenshot,
  signInWithEmailCode,
  startStack,
  stopAllStacks,
  type Stack,
} from './harness.js';

const OWNER = 'owner@console.test';
const TARGET = 'target@console.test';
const OTHERS = ['ada@console.test', 'linus@console.test', 'grace@console.test'];
const DOCS = process.env['SVC_DOCS_SCREENSHOTS'] === '1' ? join(ROOT, 'docs/admin-console') : null;

/**
 * The artifact screenshot, and the committed docs PNG when regenerating them
 * (viewport height, so pages read like a screen).
 */
async function shoot(page: Page, name: string): Promise<void> {
  await screenshot(page, `admin-console-${name}`);
  if (!DOCS) return;
  mkdirSync(DOCS, { recursive: true });
  await page.screenshot({ path: join(DOCS, `${name}.png`), fullPage: true });
}

/** A call to the console API from inside the page (same origin, the admin's cookies), for seeding. */
async function consoleApi(
  page: Page,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  return page.evaluate(
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
}

describe('admin console in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let admin: Page;
  let adminContext: BrowserContext;
  let target: Page;
  let pageErrors: () => string[];

  beforeAll(async () => {
    browser = await launchChromium();
    stack = await startStack({ ownerEmail: OWNER });
    const a = await newPage(browser);
    const b = await newPage(browser);
    await a.page.setViewportSize({ width: 1280, height: 860 });
    [admin, target, adminContext] = [a.page, b.page, a.context];
    pageErrors = () => [...a.pageErrors, ...b.pageErrors];
  });

  afterEach(() => {
    expect(pageErrors()).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await stopAllStacks();
  });

  it('lets the OWNER_EMAIL account in after some sign-in activity (accounts, a failed code)', async () => {
    // Every browser shares one loopback IP, and the API limits code sends and checks per IP: few of them here.
    await registerWithEmailCode(stack, target, TARGET);
    await registerWithEmailCode(stack, admin, OWNER);
    await admin.context().clearCookies();
    await signInWithEmailCode(stack, admin, OWNER, { wrongCodeFirst: true }); // a real failed sign-in for the charts
    await admin.locator('#admin-link').waitFor({ state: 'visible' });
    // More accounts, created by the admin (no codes involved).
    for (const email of OTHERS)
      expect((await consoleApi(admin, 'POST', '/admin/users', { email, roles: ['user'] })).status).toBe(201);
  });

  it('reads the sign-in health charts, with their numbers in tables', async () => {
    await admin.goto(`${stack.demo}/admin`);
    await expect.poll(() => admin.textContent('h1')).toBe('Sign-in health');
    await expect.poll(() => admin.getAttribute('html', 'data-charts-ready')).toBe('3');
    expect(await admin.locator('.chart canvas').count()).toBe(3);
    // Two registrations and one sign-in, each an issued session.
    const signins = (await admin.locator('table[data-for="chart-signins"] tfoot td').allTextContents()).map(Number);
    expect(signins.reduce((a, b) => a + b, 0)).toBe(3);
    expect(await admin.locator('table[data-for="chart-signins"] thead').textContent()).toContain('Email code');
    const failures = await admin.locator('table[data-for="chart-failures"] tfoot td').first().textContent();
    expect(Number(failures)).toBeGreaterThanOrEqual(1);
    await expect.poll(() => admin.textContent('#failure-reasons')).toContain('verify_otp_failed');
    expect(Number(await admin.textContent('#stat-active-sessions .stat-value'))).toBeGreaterThanOrEqual(2);
    await shoot(admin, 'health');
  });

  it('searches a user and opens their detail', async () => {
    await admin.click('nav a:has-text("Users")');
    await admin.waitForURL(`${stack.demo}/admin/users`);
    expect(await admin.locator('#users-table tbody tr').count()).toBe(2 + OTHERS.length);
    await shoot(admin, 'users');
    await admin.fill('#user-search', 'target@');
    await admin.press('#user-search', 'Enter');
    await admin.waitForURL(/\/admin\/users\?search=target%40/);
    await expect.poll(() => admin.locator('#users-table tbody tr').count()).toBe(1);
    await admin.click(`#users-table a:has-text("${TARGET}")`);
    await expect.poll(() => admin.textContent('h1')).toBe(TARGET);
    expect(await admin.locator('#user-sessions tbody tr').count()).toBe(1);
    await shoot(admin, 'user-detail');
  });

  it('revokes the user’s session and the user’s browser is signed out', async () => {
    await target.goto(`${stack.demo}/app`);
    await expect.poll(() => target.textContent('#who')).toBe(TARGET);
    // Escape cancels: nothing is sent.
    await admin.click('#user-sessions tbody tr button[data-api]');
    await admin.locator('#confirm-dialog').waitFor({ state: 'visible' });
    await admin.keyboard.press('Escape');
    await admin.locator('#confirm-dialog').waitFor({ state: 'hidden' });
    expect((await target.context().request.get(`${stack.demo}/auth/users/me`)).status()).toBe(200);
    await admin.click('#user-sessions tbody tr button[data-api]');
    await admin.locator('#confirm-dialog').waitFor({ state: 'visible' });
    await admin.click('#confirm-ok');
    await expectNotice(admin, 'ok', 'Session revoked');
    expect(await admin.locator('#user-sessions').count()).toBe(0);
    // The target's account page finds the session gone and returns to sign-in.
    await target.goto(`${stack.demo}/app`);
    await target.waitForURL(`${stack.demo}/?next=%2Fapp`);
    expect((await target.context().request.get(`${stack.demo}/auth/users/me`)).status()).toBe(401);
    await screenshot(target, 'admin-console-target-signed-out');
  });

  it('runs device replacement recovery behind a passkey step-up: the console runs the ceremony and retries', async () => {
    await addVirtualAuthenticator(adminContext, admin);
    await admin.goto(`${stack.demo}/app`);
    await admin.click('#add-passkey');
    await expectNotice(admin, 'ok', 'Passkey added. You can now sign in with it.');
    await admin.goto(`${stack.demo}/admin/users?search=target%40`);
    await admin.click(`#users-table a:has-text("${TARGET}")`);
    await admin.click('#recovery summary');
    await admin.fill('#recovery-evidence', 'HELPDESK-42');
    await admin.click('#recovery-form button[type="submit"]');
    await admin.click('#confirm-ok');
    // The API answers step_up_required; the console asks the admin to confirm it's them.
    await admin.locator('#step-up-dialog').waitFor({ state: 'visible' });
    await screenshot(admin, 'admin-console-step-up');
    await admin.click('#step-up-passkey');
    await expectNotice(admin, 'ok', 'Recovery done: sessions revoked, passkeys removed, authenticator app turned off');
    const events = await consoleApi(admin, 'GET', '/admin/auth-events?type=admin_device_replacement_recovery');
    expect(events.body.events).toHaveLength(1);
    expect(events.body.events[0].actorUserId).toBeTruthy();
    expect(events.body.events[0].actorUserId).not.toBe(events.body.events[0].userId);
  });

  it('records the revocation with the acting admin and filters the auth events by user and type', async () => {
    await admin.goto(`${stack.demo}/admin/events`);
    await admin.fill('#filter-user', TARGET);
    await admin.selectOption('#filter-type', '');
    await admin.click('#event-filters button[type="submit"]');
    await admin.waitForURL(/\/admin\/events\?/);
    const revoked = admin.locator('#events-table tbody tr', { hasText: 'admin_session_revoked' });
    await expect.poll(() => revoked.count()).toBe(1);
    // The "By admin" column links the owner.
    expect(await revoked.locator('td:nth-child(4) a').count()).toBe(1);
    expect(await admin.getAttribute('#export-csv', 'href')).toContain('user=target%40console.test');
    await shoot(admin, 'events');
  });

  it('changes a config value, and shows the API’s validation error next to a bad one', async () => {
    await admin.goto(`${stack.demo}/admin/config`);
    await admin.fill('#cfg-app_name', 'Console E2E');
    await admin.click('#config-save');
    await expectNotice(admin, 'ok', 'Config saved');
    expect(await admin.inputValue('#cfg-app_name')).toBe('Console E2E');

    await admin.fill('#cfg-access_token_ttl', 'soon');
    await admin.click('#config-save');
    await expectNotice(admin, 'error', /Not saved: .*See the highlighted fields\./);
    await expect.poll(() => admin.textContent('#error-access_token_ttl')).toMatch(/must match/);
    expect(await admin.getAttribute('#cfg-access_token_ttl', 'aria-invalid')).toBe('true');
    await shoot(admin, 'config');
    // Nothing was stored.
    const stored = await consoleApi(admin, 'GET', '/system-config/admin');
    expect(stored.body.access_token_ttl).not.toBe('soon');
    expect(stored.body.app_name).toBe('Console E2E');
  });

  it('shows sessions, organizations and OAuth providers (secrets never shown)', async () => {
    const users = (await consoleApi(admin, 'GET', '/admin/users?limit=50')).body.users as {
      id: string;
      email: string;
    }[];
    const org = await consoleApi(admin, 'POST', '/admin/organizations', {
      name: 'Acme Research',
      slug: 'acme-research',
    });
    expect(org.status).toBe(201);
    for (const u of users.filter((x) => OTHERS.includes(x.email))) {
      expect(
        (
          await consoleApi(admin, 'POST', `/admin/organizations/${org.body.organization.id}/members`, {
            userId: u.id,
            roles: ['member'],
          })
        ).status,
      ).toBe(201);
    }

    await admin.goto(`${stack.demo}/admin/sessions`);
    expect(await admin.locator('#sessions-table tbody tr').count()).toBeGreaterThanOrEqual(2);
    await shoot(admin, 'sessions');

    await admin.goto(`${stack.demo}/admin/organizations`);
    await admin.click('#orgs-table a:has-text("Acme Research")');
    await expect.poll(() => admin.locator('#members-table tbody tr').count()).toBe(4);
    await shoot(admin, 'organization');

    // Add a provider through its form; the API's validation error lands next to the field first.
    await admin.goto(`${stack.demo}/admin/providers`);
    const fields: Record<string, string> = {
      id: 'github',
      name: 'GitHub',
      clientId: 'Iv1.demo',
      clientSecretEnv: 'github_secret',
      authorizationUrl: 'https://github.com/login/oauth/authorize',
      tokenUrl: 'https://github.com/login/oauth/access_token',
      userInfoUrl: 'https://api.github.com/user',
      scopes: 'read:user, user:email',
    };
    for (const [k, v] of Object.entries(fields)) await admin.fill(`#new-${k}`, v);
    await admin.click('#add-provider button[type="submit"]');
    await expectNotice(admin, 'error', /Not saved/);
    await expect
      .poll(() => admin.textContent('#add-provider [data-error-for="clientSecretEnv"]'))
      .toMatch(/NAME of an env variable|_CLIENT_SECRET/);
    await admin.fill('#new-clientSecretEnv', 'GITHUB_CLIENT_SECRET');
    await admin.click('#add-provider button[type="submit"]');
    await expectNotice(admin, 'ok', 'Provider added');
    expect(await admin.textContent('#providers-table')).toContain('GITHUB_CLIENT_SECRET');
    // Disable, then edit the display name.
    await admin.click('#providers-table button:has-text("Disable")');
    await admin.click('#confirm-ok');
    await expectNotice(admin, 'ok', 'Provider disabled');
    expect(await admin.textContent('#providers-table')).toContain('disabled');
    await admin.click('summary:has-text("Edit GitHub")');
    await admin.fill('#p-github-name', 'GitHub (staff)');
    await admin.click('details:has(#p-github-name) button[type="submit"]');
    await expectNotice(admin, 'ok', 'Provider saved');
    expect(await admin.textContent('#providers-table')).toContain('GitHub (staff)');
    await admin.click('summary:has-text("Edit GitHub (staff)")');
    await shoot(admin, 'providers');
  });
});
