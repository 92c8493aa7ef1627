/**
 * The console's Webhooks screen in Chromium (the demo mounts the console at
 * /admin): the OWNER_EMAIL account adds an endpoint and sees its signing
 * secret once, a receiver on the host gets a delivery that verifies with it,
 * a failing endpoint's delivery shows its HTTP status and is resent.
 * Saves docs/screenshots/webhooks.png (linked from docs/webhooks.md) with SVC_DOCS_SCREENSHOTS=1.
 */
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
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

const OWNER = 'owner@webhooks.test';

describe('Webhooks screen in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let admin: Page;
  let errors: string[];
  let ok: WebhookReceiver;
  let down: WebhookReceiver;

  beforeAll(async () => {
    browser = await launchChromium();
    stack = await startStack({ ownerEmail: OWNER });
    const a = await newPage(browser);
    await a.page.setViewportSize({ width: 1280, height: 900 });
    [admin, errors] = [a.page, a.pageErrors];
    ok = await startReceiver();
    down = await startReceiver((_req, res) => {
      res.writeHead(500).end();
    });
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([ok?.close(), down?.close()]);
    await stopAllStacks();
  });

  it('adds endpoints (secret shown once), lists deliveries and failures, resends one', async () => {
    await registerWithEmailCode(stack, admin, OWNER);
    await admin.goto(`${stack.demo}/admin/webhooks`);
    await expect.poll(() => admin.textContent('h1')).toBe('Webhooks');

    // An endpoint for every event: the secret appears once, in the reveal box.
    await admin.fill('#webhook-url', ok.url);
    await admin.fill('#webhook-description', 'Audit log sink');
    await admin.click('#webhook-form button[type="submit"]');
    await admin.locator('#secret-reveal').waitFor({ state: 'visible' });
    const secret = (await admin.textContent('#secret-value'))!;
    expect(secret).toMatch(/^whsec_/);
    await screenshot(admin, 'webhooks-secret');
    await admin.click('#secret-done');
    await expectNotice(admin, 'ok', 'Endpoint added');
    expect(await admin.content()).not.toContain(secret.slice('whsec_'.length));

    // Its own creation event reaches the receiver, signed with that secret.
    const [first] = await ok.waitFor(1, 20_000);
    const payload = new Webhook(secret).verify(first!.body, first!.headers) as { type: string };
    expect(payload.type).toBe('webhook_endpoint_created');

    // A failing endpoint for session events: a sign-in's delivery fails with HTTP 500.
    await admin.click('#add-webhook summary');
    await admin.fill('#webhook-url', down.url);
    await admin.fill('#webhook-types', 'session_issued, login_failed');
    await admin.fill('#webhook-description', 'Flaky CRM');
    await admin.click('#webhook-form button[type="submit"]');
    await admin.locator('#secret-reveal').waitFor({ state: 'visible' });
    await admin.click('#secret-done');
    await expectNotice(admin, 'ok', 'Endpoint added');
    await registerWithEmailCode(stack, (await newPage(browser)).page, 'someone@webhooks.test');
    await down.waitFor(1, 20_000);

    await admin.goto(`${stack.demo}/admin/webhooks`);
    await expect
      .poll(async () => admin.locator('#deliveries-table tr:has-text("HTTP 500")').count())
      .toBeGreaterThan(0);
    await expect.poll(async () => admin.locator('#deliveries-table .pill.green').count()).toBeGreaterThan(0);
    await docsScreenshot(admin, 'webhooks');

    const failing = admin.locator('#deliveries-table tr:has-text("HTTP 500")').first();
    const before = down.received.length;
    await failing.locator('button:has-text("Resend")').click();
    await expectNotice(admin, 'ok', 'Delivery queued again');
    await expect.poll(() => down.received.length, { timeout: 20_000 }).toBeGreaterThan(before);

    // Failures only.
    await admin.click('#delivery-filters a:has-text("pending")');
    await expect.poll(() => admin.url()).toContain('status=pending');
    expect(errors).toEqual([]);
  });
});
