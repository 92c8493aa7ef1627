/**
 * Setup file of `npm run test:drift`: every `makeApi()` of the existing route
 * suites gets the response checker of `buildApiDocument()`, and a test whose
 * answers drift from the document fails in its afterEach. What each file saw
 * is written to SVC_DRIFT_DIR for the summary printed by drift.global.ts.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, expect, vi } from 'vitest';
import type { ResponseChecker } from './response-checker.js';

const shared = globalThis as { svcDriftChecker?: Promise<ResponseChecker> };

async function checker(): Promise<ResponseChecker> {
  shared.svcDriftChecker ??= (async () => {
    const { buildApiDocument } = await import('../../src/openapi/document.js');
    const { createResponseChecker } = await import('./response-checker.js');
    return createResponseChecker(buildApiDocument());
  })();
  return shared.svcDriftChecker;
}

vi.mock('../helpers/make-app.js', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../helpers/make-app.js')>();
  return {
    ...mod,
    makeApi: async (...args: Parameters<typeof mod.makeApi>) => {
      const t = await mod.makeApi(...args);
      (await checker()).observe(t);
      return t;
    },
  };
});

afterEach(async () => {
  const found = (await checker()).violations.splice(0);
  expect(found, 'responses that drift from docs/openapi.json').toEqual([]);
});

afterAll(async () => {
  const dir = process.env['SVC_DRIFT_DIR'];
  if (!dir || !shared.svcDriftChecker) return;
  const { seen, unmatched } = await checker();
  const summary = { seen: Object.fromEntries([...seen].map(([k, v]) => [k, [...v]])), unmatched };
  writeFileSync(join(dir, `${randomUUID()}.json`), JSON.stringify(summary));
});
