/**
 * `npm run authz-matrix`: runs the authorization matrix (test/authz) and
 * prints one line per route, surface and principal with the answer the
 * contract gives and the observed one. Exits 1 when a route has no row, a row
 * has no route, or a cell not marked as a known open defect fails.
 */
import { buildMatrix, evaluate, formatCell, runCells, type CellResult } from '../test/authz/matrix.js';

const m = await buildMatrix();
const results: CellResult[] = [];
await runCells(m.cells, 12, async (cell) => {
  results.push(await evaluate(cell));
});
await m.apps.close();

const order = new Map(m.cells.map((c, i) => [`${c.surface} ${c.route} ${c.principal}`, i]));
results.sort(
  (a, b) => order.get(`${a.surface} ${a.route} ${a.principal}`)! - order.get(`${b.surface} ${b.route} ${b.principal}`)!,
);
for (const r of results) console.log(formatCell(r));

const failed = results.filter((r) => !r.pass && !r.knownDefect);
const known = results.filter((r) => !r.pass && r.knownDefect);
const routes = new Set(results.map((r) => `${r.surface} ${r.route}`)).size;
console.log(
  `\nauthorization matrix: ${routes} routes × surfaces, ${results.length} cells, ${results.filter((r) => r.pass).length} as the contract says, ${known.length} known open defects, ${failed.length} unexpected`,
);
for (const line of m.coverage.missing) console.log(`  route without a row: ${line}`);
for (const line of m.coverage.stale) console.log(`  row without a route: ${line}`);
const byNote = new Map<string, CellResult[]>();
for (const r of known) byNote.set(r.knownDefect!.note, [...(byNote.get(r.knownDefect!.note) ?? []), r]);
for (const [note, cells] of byNote) {
  console.log(`  known: ${note} (${cells.length} cells)`);
  console.log(`    principals: ${[...new Set(cells.map((c) => c.principal))].join(', ')}`);
  console.log(`    routes: ${[...new Set(cells.map((c) => `${c.surface} ${c.route}`))].join('; ')}`);
}
if (failed.length) {
  // An unexpected 5xx is easier to read with the API's own account of it.
  const lines = m.apps.h.t.logs.filter(
    (l) => (l.level === 'warn' || l.level === 'error') && !l.line.includes('no delivery transport'),
  );
  for (const l of [...new Set(lines.map((l) => l.line.slice(0, 400)))].slice(0, 10)) console.log(`  api log: ${l}`);
}
process.exit(failed.length || m.coverage.missing.length || m.coverage.stale.length ? 1 : 0);
