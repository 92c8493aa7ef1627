/**
 * Global setup of `npm run test:drift`: a scratch directory for the per-file summaries, merged and printed at the end.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApiDocument } from '../../src/openapi/document.js';

export default function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-drift-'));
  process.env['SVC_DRIFT_DIR'] = dir;
  return () => {
    const seen = new Map<string, Set<number>>();
    for (const file of readdirSync(dir)) {
      const part = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { seen: Record<string, number[]> };
      for (const [k, statuses] of Object.entries(part.seen))
        statuses.forEach((s) => (seen.get(k) ?? seen.set(k, new Set()).get(k)!).add(s));
    }
    rmSync(dir, { recursive: true, force: true });
    const doc = buildApiDocument() as { paths: Record<string, Record<string, unknown>> };
    const all = Object.entries(doc.paths).flatMap(([p, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`),
    );
    const pairs = [...seen.values()].reduce((n, s) => n + s.size, 0);
    const missing = all.filter((k) => !seen.has(k));
    console.log(
      `\ndrift: ${seen.size}/${all.length} documented operations answered, ${pairs} distinct (operation, status) pairs checked`,
    );
    if (missing.length)
      console.log(
        `drift: not exercised by these suites: ${missing.length > 12 ? `${missing.length} operations` : missing.join(', ')}`,
      );
  };
}
