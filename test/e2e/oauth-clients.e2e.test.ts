/**
 * The console's OAuth clients screen and the demo's Apps list in Chromium
 * (docs/oauth-provider.md, "Clients" and "Consent and the user's apps page"):
 * the OWNER_EMAIL account adds a confidential client and sees its secret once
 * (with a copy button), edits it, rotates the secret, sees a dynamically
 * registered client marked as such; then, holding a consent for the client,
 * revokes it from the account page. The consent row is written to the
 * stack's database directly (the consent page belongs to the authorization
 * flow). Saves docs/screenshots/oauth-clients.png.
 */
import { join } from 'node:path';
import { createClient, type Client } from '@libsql/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../runtime/processes.js';
import {
  expectNotice,
  launchChromium,
  newPage,
  registerWithEmailCode,
  screenshot,
  startStack,
  stopAllStacks,
  type Stack,
  docsScreenshot,
} from './harness.js';

const OWNER = 'owner@oauth-clients.test';

describe('OAuth clients screen and the Apps list in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let context: BrowserContext;
  let admin: Page;
  let errors: string[];
  let db: Client;

  beforeAll(async () => {
    browser = await launchChromium();
    const file = join(tempDir('e2e-oauth-clients'), 'svc.db');
    stack = await startStack({
      ownerEmail: OWNER,
      env: {
        DATABASE_URL: `file:${file}`,
        OAUTH_SERVER: JSON.stringify({
          enabled: true,
          issuer: 'http://localhost/auth',
          dynamicRegistration: { enabled: true, perIpPerHour: 10, unusedExpiryDays: 30 },
        }),
      },
    });
    db = createClient({ url: `file:${file}` });
    const a = await newPage(browser);
    [context, admin, errors] = [a.context, a.page, a.pageErrors];
    await admin.setViewportSize({ width: 1280, height: 900 });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.demo });
  });

  afterAll(async () => {
    db?.close();
    await browser?.close();
    await stopAllStacks();
  });

  it('adds a client (secret once, copy), edits it, rotates the secret; a dynamic client is marked; the user revokes it', async () => {
    await registerWithEmailCode(stack, admin, OWNER);
    // An MCP-style client registers itself through the demo's adapter.
    const registered = await fetch(`${stack.demo}/auth/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Claude Desktop (MCP)',
        redirect_uris: ['http://127.0.0.1:33418/callback'],
        token_endpoint_auth_method: 'none',
        scope: 'openid offline_access',
      }),
    });
    expect(registered.status).toBe(201);

    await admin.goto(`${stack.demo}/admin/oauth-clients`);
    await expect.poll(() => admin.textContent('h1')).toBe('OAuth clients');
    await expect
      .poll(() =>
        admin.locator('#oauth-clients-table tr:has-text("Claude Desktop (MCP)") .pill:has-text("dynamic")').count(),
      )
      .toBe(1);

    await admin.click('#add-oauth-client summary');
    await admin.fill('#client-name', 'Team notes');
    await admin.fill('#client-redirect', 'https://notes.example.com/callback, https://notes.example.com/silent');
    await admin.fill('#client-uri', 'https://notes.example.com');
    await admin.click('#oauth-client-form button[type="submit"]');
    await admin.locator('#secret-reveal').waitFor({ state: 'visible' });
    const secret = (await admin.textContent('#secret-value'))!;
    expect(secret).toMatch(/^svc_cs_/);
    await admin.click('#secret-copy');
    await expectNotice(admin, 'info', 'Copied to the clipboard.');
    expect(await admin.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await screenshot(admin, 'oauth-clients-secret');
    await admin.click('#secret-done');
    await expectNotice(admin, 'ok', 'Client added');
    expect(await admin.content()).not.toContain(secret.slice('svc_cs_'.length));

    // A bad redirect URI is refused next to its field.
    await admin.click('details:has(summary:has-text("Edit Team notes")) summary');
    const edit = admin.locator('form.oauth-client-form').filter({ has: admin.locator('input[value="Team notes"]') });
    await edit.locator('input[name="redirectUris"]').fill('https://notes.example.com/callback#frag');
    await edit.locator('button[type="submit"]').click();
    await expect.poll(() => edit.locator('[data-error-for="redirectUris"]').textContent()).toContain('fragment');
    await edit.locator('input[name="redirectUris"]').fill('https://notes.example.com/callback');
    await edit.locator('input[name="name"]').fill('Team Notes');
    await edit.locator('button[type="submit"]').click();
    await expectNotice(admin, 'ok', 'Client saved');
    const row = admin.locator('#oauth-clients-table tr:has-text("Team Notes")');
    await expect.poll(() => row.textContent()).not.toContain('/silent');

    await row.locator('button:has-text("Rotate secret")').click();
    await admin.locator('#confirm-dialog').waitFor({ state: 'visible' });
    await admin.click('#confirm-ok');
    await admin.locator('#secret-reveal').waitFor({ state: 'visible' });
    const rotated = (await admin.textContent('#secret-value'))!;
    expect(rotated).toMatch(/^svc_cs_/);
    expect(rotated).not.toBe(secret);
    await admin.click('#secret-done');
    await expectNotice(admin, 'ok', 'Secret rotated');
    await docsScreenshot(admin, 'oauth-clients');

    // The owner consented to Team Notes (as the consent page would record it): the account page lists it.
    const clientId = (await row.getAttribute('data-client'))!;
    const users = await db.execute({ sql: 'SELECT id FROM users WHERE email = ?', args: [OWNER] });
    const now = Date.now();
    await db.execute({
      sql: 'INSERT INTO oauth_consents (user_id, client_id, scope, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
      args: [String(users.rows[0]!['id']), clientId, 'openid email offline_access', now, now],
    });
    await admin.goto(`${stack.demo}/app`);
    const app = admin.locator(`#oauth-apps-list tr[data-app="${clientId}"]`);
    await app.waitFor({ state: 'visible' });
    expect(await app.textContent()).toContain('Team Notes');
    expect(await app.textContent()).toContain('offline_access');
    await screenshot(admin, 'oauth-apps');
    await app.locator('button:has-text("Revoke")').click();
    await expectNotice(admin, 'ok', 'Access revoked: the app is signed out.');
    await expect.poll(() => admin.locator('#oauth-apps-list').textContent()).toContain('No apps signed in');
    const left = await db.execute('SELECT count(*) AS n FROM oauth_consents');
    expect(Number(left.rows[0]!['n'])).toBe(0);
    expect(errors).toEqual([]);
  });
});
