/**
 * The authorization matrix (one test for the whole class of authorization bugs): every route the
 * auth API, the Hono apps (`svcAdapter`, `svcTotpBridge`, `svcAdminConsole`,
 * `svcWellKnown`) and the Express apps (`svcExpressAdapter`,
 * `svcExpressTotpBridge`, `svcExpressAdminConsole`, `svcExpressWellKnown`)
 * serve, called by every principal kind (principals.ts), in each transport,
 * answers what the contract gives that principal: refused with the exact
 * status and code (401 `unauthorized`, 403 `forbidden` + `required`, 403
 * `step_up_required`, 404 "Organization not found"), or past the gate (no
 * refusal, no 5xx). Service and delivery tokens are never route credentials:
 * alone they unlock nothing, next to a user they elevate nothing.
 *
 * The routes come from the apps themselves (apps.ts), so a route added to any
 * of them without a row fails "has a row for every route", and a row whose
 * route is gone fails too.
 *
 * HOW TO ADD A ROW (test/authz/matrix-rows.ts):
 *   - An API route: one line in `API_ROWS`, keyed `METHOD /path` as the app
 *     registers it, e.g.
 *       'POST /organizations/:organizationId/invitations': { gate: 'org:manager', body: { email: 'a@example.com' } },
 *     `gate` is the credential class (gates.ts: `none`, `ephemeral:<ctx>`,
 *     `refresh`, `access`, `access+step-up-if-capable`, `admin:read`,
 *     `admin:write`, `admin:write+step-up`, `org:read`, `org:members`,
 *     `org:manager`, `org:member`, `logout`). Give `params` (`org`, `victim`,
 *     `victimSession`, `victimCredential`, `missing` or a literal), `query`
 *     and a `body` that validates (a function gets those ids), so the
 *     gate rather than a 400 decides; `after` lists codes the route answers
 *     after the gate (a wrong code…); `fresh` for a route that spends its
 *     caller; `passAs` for the exact answer past the gate when the target is
 *     someone else's (an IDOR check); `overrides` where the contract gives one
 *     principal another answer.
 *   - An adapter route: add it to common/route-table.ts as usual; it
 *     inherits the row of its raw route (`adapter` in a row patches what
 *     differs through an adapter). Console pages and well-known files have
 *     their own small tables in the same file.
 *   - A defect you cannot fix in the same change: `knownDefect` on the row;
 *     it is reported here and by `npm run authz-matrix`, and this test fails
 *     once it is fixed, so the marker is removed.
 * `npm run authz-matrix` prints every cell.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { coverage } from './coverage.js';
import { matches } from './gates.js';
import { buildMatrix, evaluate, formatCell, type Cell, type CellResult } from './matrix.js';

const m = await buildMatrix();
const known: CellResult[] = [];

afterAll(async () => {
  if (known.length)
    console.warn(`authorization matrix: ${known.length} known open defects\n${known.map(formatCell).join('\n')}`);
  await m.apps.close();
});

describe('authorization matrix: coverage', () => {
  it('reads the routes from every app (API, and per framework the adapter, TOTP bridge, admin console and well-known files)', () => {
    const parts = m.apps.parts.map((p) => `${p.framework} ${p.part}`);
    expect(parts).toEqual(
      expect.arrayContaining([
        'api api',
        'hono adapter',
        'hono totp bridge',
        'hono admin console',
        'hono well-known',
        'express adapter',
        'express totp bridge',
        'express admin console',
        'express well-known',
      ]),
    );
    for (const p of m.apps.parts)
      expect(p.routes.length, `${p.framework} ${p.part}`).toBeGreaterThan(
        p.part === 'api' || p.part === 'adapter' ? 80 : 2,
      );
    // Both frameworks serve the same routes.
    const of = (f: string) =>
      m.apps.parts
        .filter((p) => p.framework === f)
        .flatMap((p) => p.routes.map((r) => `${p.part} ${r.method} ${r.path}`))
        .sort();
    expect(of('express')).toEqual(of('hono'));
  });

  it('has a row for every route the apps serve, and no row for a route that is gone', () => {
    expect(m.coverage.missing, 'routes without a row in test/authz/matrix-rows.ts').toEqual([]);
    expect(m.coverage.stale, 'rows whose route no app serves').toEqual([]);
  });

  it('notices a new route without a row, and a row whose route was removed', () => {
    const api = m.apps.parts.find((p) => p.part === 'api')!;
    const withNew = {
      ...api,
      routes: [...api.routes, { method: 'POST', path: '/organizations/:organizationId/brand-new' }],
    };
    expect(coverage([withNew]).missing).toContain('api api: POST /organizations/:organizationId/brand-new');
    const without = { ...api, routes: api.routes.filter((r) => !(r.method === 'GET' && r.path === '/users/me')) };
    expect(coverage([without]).stale).toContain('API_ROWS GET /users/me');
  });
});

/** Cells grouped by surface, then route: one test per route and surface. */
const groups = new Map<string, Map<string, Cell[]>>();
for (const cell of m.cells) {
  const bySurface = groups.get(cell.surface) ?? new Map<string, Cell[]>();
  groups.set(cell.surface, bySurface);
  bySurface.set(cell.route, [...(bySurface.get(cell.route) ?? []), cell]);
}

for (const [surface, routes] of groups) {
  describe(`authorization matrix: ${surface}`, () => {
    for (const [route, cells] of routes) {
      it(`${route} answers each principal as the contract says`, async () => {
        // A cell that passes shows the request reaches past the gate at all (else a refusal could be an accident of setup);
        // the console in bearer transport is the exception: it acts on no bearer, so nobody passes there.
        const bearerOnConsole = cells[0]!.row.cookieOnly && cells[0]!.transport === 'bearer';
        expect(
          cells.some((c) => 'pass' in c.expected),
          'some principal must pass the gate',
        ).toBe(!bearerOnConsole || cells[0]!.row.gate === 'none');
        const results = await Promise.all(cells.map(async (c) => ({ cell: c, result: await evaluate(c) })));
        const wrong: string[] = [];
        for (const { cell, result } of results) {
          if (cell.knownDefect) {
            known.push(result);
            // Still open: the observed answer is the defect's. Fixed: remove `knownDefect` from the row.
            if (!matches(cell.row, { refuse: cell.knownDefect.observed }, result.observed))
              wrong.push(`${formatCell(result)}  <- knownDefect no longer observed: remove the marker`);
          } else if (!result.pass) wrong.push(formatCell(result));
        }
        expect(wrong).toEqual([]);
      });
    }
  });
}
