/**
 * The origin guard (contract §5.11 as amended in docs/contract-changes.md,
 * a present Origin decides, in every SameSite mode), every combination on both adapters:
 * Origin × Sec-Fetch-Site × method × transport × effective SameSite. The
 * expected answer of each row is computed by the rule list below, written out
 * independently of the code, and does not depend on SameSite: `Lax`/`Strict`
 * cookies still ride along from a sibling subdomain (same site), so the guard
 * runs in every mode.
 */
import { describe, expect, it } from 'vitest';
import { expressMount } from '../express/harness.js';
import { honoMount, makeHarness, type Mount } from '../helpers.js';

const ORIGINS = {
  absent: undefined,
  null: 'null',
  allowed: 'https://app.example',
  'allowed (case, spaces)': '  HTTPS://App.Example ',
  'sibling subdomain': 'https://evil.app.example',
  foreign: 'https://evil.example',
} as const;
const SITES = [undefined, 'same-origin', 'same-site', 'cross-site', 'none'] as const;

/** The amended rules, in order, for an unsafe method in cookie transport (any SameSite). */
function expectedAllowed(origin: keyof typeof ORIGINS, site: (typeof SITES)[number]): boolean {
  if (origin === 'null') return false; // (1)
  if (origin === 'allowed' || origin === 'allowed (case, spaces)') return true; // (2)
  if (origin !== 'absent') return false; // (3) present, not allowed: refused whatever Sec-Fetch-Site says
  if (site === 'same-origin' || site === 'none') return true; // (4)
  return site === undefined; // (5) neither header: not a browser; (6) same-site/cross-site without Origin: refused
}

describe.each([
  ['hono', honoMount],
  ['express', expressMount],
] as [string, Mount][])('origin guard matrix on the %s adapter', (_name, mount) => {
  it.each(['none', 'lax', 'strict'] as const)(
    'SameSite=%s: every Origin × Sec-Fetch-Site × method × transport',
    async (sameSite) => {
      const h = await makeHarness(
        { cookieSecure: true, cookieSameSite: sameSite, issuer: 'https://app.example' },
        {},
        { mount },
      );
      const rows: string[] = [];
      for (const [originName, origin] of Object.entries(ORIGINS) as [keyof typeof ORIGINS, string | undefined][]) {
        for (const site of SITES) {
          for (const method of ['POST', 'GET'] as const) {
            for (const transport of ['cookie', 'bearer'] as const) {
              const headers: Record<string, string> = {};
              if (origin !== undefined) headers['origin'] = origin;
              if (site !== undefined) headers['sec-fetch-site'] = site;
              if (transport === 'bearer') headers['x-svc-auth-transport'] = 'bearer';
              // POST /auth/login needs no credential (200 when let through); GET /auth/oauth/providers likewise.
              const res =
                method === 'POST'
                  ? await h.send('POST', '/auth/login', { headers, body: { identifier: 'someone@example.com' } })
                  : await h.send('GET', '/auth/oauth/providers', { headers });
              const guarded = method === 'POST' && transport === 'cookie';
              const want = guarded && !expectedAllowed(originName, site) ? 403 : 200;
              const blocked =
                res.status === 403 && (res.body as { error?: string }).error === 'cross_site_request_blocked';
              if ((want === 403) !== blocked || (want === 200 && res.status !== 200))
                rows.push(
                  `${method} ${transport} Origin=${originName} Sec-Fetch-Site=${site ?? 'absent'}: want ${want}, got ${res.status}`,
                );
            }
          }
        }
      }
      expect(rows).toEqual([]);
    },
    60_000,
  );
});
