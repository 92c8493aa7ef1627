/**
 * `npm run test:drift`: the existing API route suites, unchanged, with every
 * answer checked against docs/openapi.json (see drift.setup.ts).
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/api/routes/**/*.test.ts'],
    setupFiles: ['test/openapi/drift.setup.ts'],
    globalSetup: ['test/openapi/drift.global.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 1, minForks: 1 } },
  },
});
