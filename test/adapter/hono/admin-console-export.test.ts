/** svcAdminConsole: its served assets (generated, up to date) and the auth-events CSV export. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { svcAdminConsole } from '../../../adapter/hono/index.js';
import { csvField } from '../../../adapter/admin-console/csv.js';
import { UPLOT_VERSION } from '../../../adapter/admin-console/assets.generated.js';
import { renderAssets } from '../../../scripts/admin-console-assets.mjs';
import { makeHarness, signedInBrowser, type Mount } from '../helpers.js';

const ROOT = join(import.meta.dirname, '../../..');

const mount: Mount = async (opts) => {
  const app = new Hono();
  app.route('/admin', svcAdminConsole(opts));
  return { request: async (path, init) => app.request(`http://localhost:3000${path}`, init), close: async () => {} };
};

describe('svcAdminConsole assets', () => {
  it('serves its script, stylesheet and uPlot from the package, nothing else', async () => {
    const h = await makeHarness({}, {}, { mount });
    for (const [name, type] of [
      ['console.js', 'text/javascript'],
      ['console.css', 'text/css'],
      ['uplot.js', 'text/javascript'],
      ['uplot.css', 'text/css'],
    ] as const) {
      const res = await h.send('GET', `/admin/assets/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type'), name).toContain(type);
      expect(res.text.length, name).toBeGreaterThan(500);
    }
    expect((await h.send('GET', '/admin/assets/uplot.js')).text).toContain('uPlot');
    expect((await h.send('GET', '/admin/assets/..%2Fpackage.json')).status).toBe(404);
    expect((await h.send('GET', '/admin/assets/secret.txt')).status).toBe(404);
  });

  it('is generated from the static sources and the installed uplot (run node scripts/admin-console-assets.mjs)', () => {
    expect(readFileSync(join(ROOT, 'adapter/admin-console/assets.generated.ts'), 'utf8')).toBe(renderAssets());
    const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules/uplot/package.json'), 'utf8')) as { version: string };
    expect(UPLOT_VERSION).toBe(pkg.version);
  });
});

describe('auth-events CSV export', () => {
  it('quotes per RFC 4180 and defuses spreadsheet formulas', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('=HYPERLINK("http://evil")')).toBe(`"'=HYPERLINK(""http://evil"")"`);
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('@cmd')).toBe("'@cmd");
    expect(csvField(null)).toBe('');
    expect(csvField({ a: 1 })).toBe('"{""a"":1}"');
  });

  it('exports every matching event (past one API page) with the filters of the screen', async () => {
    const h = await makeHarness({}, {}, { mount });
    const admin = await signedInBrowser(h, { roles: ['admin:read'] });
    for (let i = 0; i < 130; i++)
      await h.t.api.deps.events.record({
        type: 'login_failed',
        ipAddress: '192.0.2.44',
        metadata: { reason: i === 0 ? '=cmd()' : 'bad' },
      });
    await h.t.api.deps.events.record({ type: 'login_failed', ipAddress: '192.0.2.45' });
    const res = await h.send('GET', '/admin/events.csv?type=login_failed&ip=192.0.2.44', { cookies: admin.cookies });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="auth-events-[\d-]+\.csv"$/);
    const lines = res.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('createdAt,type,userId,actorUserId,sessionId,ipAddress,userAgent,metadata');
    expect(lines).toHaveLength(131);
    expect(lines.slice(1).every((l) => l.includes(',login_failed,') && l.includes('192.0.2.44'))).toBe(true);
  });

  it('refuses invalid filters with 400 invalid_request instead of exporting everything', async () => {
    const h = await makeHarness({}, {}, { mount });
    const admin = await signedInBrowser(h, { roles: ['admin:read'] });
    const res = await h.send('GET', '/admin/events.csv?from=not-a-date', { cookies: admin.cookies });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request', details: { issues: [{ path: ['from'] }] } });
    expect((await h.send('GET', '/admin/events.csv')).status).toBe(401);
  });
});
