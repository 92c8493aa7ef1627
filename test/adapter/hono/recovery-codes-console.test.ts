/** The admin console's user page shows how many recovery codes remain (docs/recovery-codes.md); never the codes. */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { svcAdapter, svcAdminConsole } from '../../../adapter/hono/index.js';
import { makeHarness, signedInBrowser, type Mount } from '../helpers.js';
import { totpStepUp } from '../../helpers/recovery-codes.js';
import { enrollTotp, STEP_ALIGNED_START_MS } from '../../helpers/totp.js';

const consoleMount: Mount = async (opts) => {
  const app = new Hono();
  app.route('/auth', svcAdapter(opts));
  app.route('/admin', svcAdminConsole(opts));
  return { request: async (path, init) => app.request(`http://localhost:3000${path}`, init), close: async () => {} };
};

describe('admin console: recovery codes on the user page', () => {
  it('shows the unused count from GET /admin/users/:userId, and no code', async () => {
    const h = await makeHarness(
      {},
      { DISABLE_AUTH_RATE_LIMITS: 'true' },
      {
        mount: consoleMount,
        clockStartMs: STEP_ALIGNED_START_MS,
      },
    );
    const admin = await signedInBrowser(h, { roles: ['admin'] });
    const target = await signedInBrowser(h);
    const page = async () => (await h.send('GET', `/admin/users/${target.user.id}`, { cookies: admin.cookies })).text;
    expect(await page()).toContain('<dt>Recovery codes</dt><dd>0 unused</dd>');

    const secret = await enrollTotp(h.t, target.env.token);
    await totpStepUp(h.t, target.env.token, secret);
    const gen = await h.t.call('POST', '/recovery-codes', { token: target.env.token });
    expect(gen.status).toBe(200);
    const api = await h.t.call('GET', `/admin/users/${target.user.id}`, { token: admin.env.token });
    expect(api.body.recoveryCodesRemaining).toBe(10);
    const html = await page();
    expect(html).toContain('<dt>Recovery codes</dt><dd>10 unused</dd>');
    for (const c of gen.body.codes as string[]) {
      expect(html).not.toContain(c);
      expect(JSON.stringify(api.body)).not.toContain(c);
    }
  });
});
