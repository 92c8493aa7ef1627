/**
 * Event webhooks through the adapters: the console's Webhooks screen on the
 * Hono and Express mounts (one shared console module), the console API's
 * one-time secret, and the admin routes through `svcAdapter` with cookies and
 * with the bearer transport.
 */
import express from 'express';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { svcExpressAdapter, svcExpressAdminConsole } from '../../../adapter/express/index.js';
import { svcAdapter, svcAdminConsole } from '../../../adapter/hono/index.js';
import { CONSOLE_CSP } from '../../../adapter/hono/admin-console.js';
import { webhookDeliveries } from '../../../src/db/schema.js';
import { closeServers, listen } from '../express/harness.js';
import { APP_ORIGIN, makeHarness, signedInBrowser, type Mount } from '../helpers.js';

afterEach(closeServers);

const honoMount: Mount = async (opts) => {
  const app = new Hono();
  app.route('/auth', svcAdapter(opts));
  app.route('/admin', svcAdminConsole(opts));
  return { request: async (path, init) => app.request(`http://localhost:3000${path}`, init), close: async () => {} };
};

const expressMount: Mount = async (opts) => {
  const app = express();
  app.use('/auth', svcExpressAdapter(opts));
  app.use('/admin', svcExpressAdminConsole(opts));
  const { server, base } = await listen(app);
  return {
    request: (path, init) => fetch(base + path, { ...init, redirect: 'manual' }),
    close: async () => server.closeAllConnections(),
  };
};

const SAME_ORIGIN = { origin: APP_ORIGIN, 'sec-fetch-site': 'same-origin' };
const inlineScripts = (page: string) =>
  [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter(
    ([, attrs, code]) => !/\bsrc=/.test(attrs!) && !/type="application\/json"/.test(attrs!) && code!.trim() !== '',
  );

describe.each([
  ['Hono', honoMount],
  ['Express', expressMount],
])('Webhooks screen (%s console)', (_name, mount) => {
  it('adds an endpoint with the secret in that answer only, lists endpoints and deliveries, offers resend', async () => {
    const h = await makeHarness({}, {}, { mount });
    const admin = await signedInBrowser(h, { roles: ['admin'] });
    const reader = await signedInBrowser(h, { roles: ['admin:read'] });
    const empty = await h.send('GET', '/admin/webhooks', { cookies: admin.cookies });
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('No webhook endpoints yet.');
    expect(empty.text).toContain('id="webhook-form"');

    const created = await h.send('POST', '/admin/api/admin/webhooks', {
      cookies: admin.cookies,
      headers: SAME_ORIGIN,
      body: { url: 'https://hooks.example.com/svc', eventTypes: ['login_failed'] },
    });
    expect(created.status).toBe(201);
    const secret = created.body.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const cross = await h.send('POST', '/admin/api/admin/webhooks', {
      cookies: admin.cookies,
      headers: { origin: 'https://evil.example' },
      body: { url: 'https://hooks.example.com/x' },
    });
    expect([cross.status, cross.body.error]).toEqual([403, 'cross_site_request_blocked']);

    await h.t.api.deps.events.record({ type: 'login_failed' });
    await h.t.api.deps.db.update(webhookDeliveries).set({ status: 'failed', attempts: 12, lastStatus: 500 });
    const page = await h.send('GET', '/admin/webhooks', { cookies: admin.cookies });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(inlineScripts(page.text)).toEqual([]);
    expect(page.text).toContain('https://hooks.example.com/svc');
    expect(page.text).toContain('Rotate secret');
    expect(page.text).toMatch(/data-api="\/admin\/webhook-deliveries\/[^"]+\/resend"/);
    expect(page.text).toContain('HTTP 500');
    expect(page.text).not.toContain(secret.slice('whsec_'.length));
    const failed = await h.send('GET', '/admin/webhooks?status=succeeded', { cookies: admin.cookies });
    expect(failed.text).toContain('No deliveries with status succeeded.');

    const readOnly = await h.send('GET', '/admin/webhooks', { cookies: reader.cookies });
    expect(readOnly.status).toBe(200);
    expect(readOnly.text).not.toMatch(/data-api=/);
    const js = await h.send('GET', '/admin/assets/console.js');
    expect(js.text).toContain('showSecretOnce');
  });
});

describe('webhook admin routes through svcAdapter', () => {
  it('answers with cookies and with the bearer transport', async () => {
    const h = await makeHarness();
    const admin = await signedInBrowser(h, { roles: ['admin'] });
    const viaCookies = await h.send('GET', '/auth/admin/webhooks', { cookies: admin.cookies });
    expect(viaCookies.status).toBe(200);
    expect(viaCookies.body).toEqual({ endpoints: [] });
    const viaBearer = await h.send('POST', '/auth/admin/webhooks', {
      headers: { authorization: `Bearer ${admin.env.token}`, 'x-svc-auth-transport': 'bearer', ...SAME_ORIGIN },
      body: { url: 'https://hooks.example.com/bearer' },
    });
    expect(viaBearer.status).toBe(201);
    expect(viaBearer.body.secret).toMatch(/^whsec_/);
    const list = await h.send('GET', '/auth/admin/webhook-deliveries?status=pending', {
      headers: { authorization: `Bearer ${admin.env.token}`, 'x-svc-auth-transport': 'bearer' },
    });
    expect(list.status).toBe(200);
    expect(list.body).toHaveProperty('total');
  });
});
