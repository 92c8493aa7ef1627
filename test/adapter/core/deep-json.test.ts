/**
 * Deeply nested JSON: ~6,000 levels in ~12 KB, well under
 * the 100 KB body limit, used to reach a recursive step (validation,
 * re-serialization) and answer 500 on the adapters while the API answered 400.
 * Every body route of the one route table, on Hono and Express, with the
 * cookie and bearer transports, refuses it with the 400 envelope before any
 * upstream call.
 */
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../../common/route-table.js';
import { MAX_JSON_DEPTH, decodeJsonBody } from '../../../adapter/core/wire.js';
import { expressMount } from '../express/harness.js';
import { honoMount, makeHarness, upstreamPaths, type Mount } from '../helpers.js';

const DEPTH = 6000;
const arrays = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const objects = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;
const bodyRoutes = ROUTES.filter((r) => r.method !== 'GET');
const concrete = (path: string) => path.replace(/:\w+/g, 'x');

describe.each([
  ['hono', honoMount],
  ['express', expressMount],
] as [string, Mount][])('deep JSON on the %s adapter', (_name, mount) => {
  it.each(['cookie', 'bearer'])(
    `refuses ${bodyRoutes.length} body routes with 400 invalid_request (%s transport), nothing forwarded`,
    async (transport) => {
      const h = await makeHarness({}, {}, { mount });
      const headers: Record<string, string> = { 'content-type': 'application/json', origin: 'http://localhost:3000' };
      if (transport === 'bearer')
        Object.assign(headers, { 'x-svc-auth-transport': 'bearer', authorization: 'Bearer a.b.c' });
      const answers: string[] = [];
      for (const route of bodyRoutes) {
        for (const rawBody of [arrays, objects]) {
          const res = await h.send(route.method, `/auth${concrete(route.path)}`, { rawBody, headers });
          answers.push(`${route.method} ${route.path} ${res.status} ${(res.body as { error?: string })?.error}`);
        }
      }
      expect(answers.filter((a) => !a.endsWith(' 400 invalid_request'))).toEqual([]);
      expect(upstreamPaths(h)).toEqual([]);
    },
    60_000,
  );
});

describe('decodeJsonBody depth bound', () => {
  const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);
  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more; brackets inside strings do not count`, () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(decodeJsonBody(enc(nest(MAX_JSON_DEPTH))).ok).toBe(true);
    expect(decodeJsonBody(enc(nest(MAX_JSON_DEPTH + 1)))).toMatchObject({ ok: false, result: { status: 400 } });
    expect(decodeJsonBody(enc(JSON.stringify({ s: '['.repeat(5000) + '\\"{'.repeat(100) })))).toMatchObject({
      ok: true,
    });
  });
});
