import { defineConfig } from 'vitest/config';
import ConformanceSequencer from './test/conformance/sequencer.js';

/**
 * The black-box conformance suite (issue #15): `npm run test:conformance`
 * runs it once per target (scripts/conformance.mjs sets CONFORMANCE_TARGET).
 * Shared cases: test/conformance/cases; cases only one target can run (several
 * instances on one sqld, two streams on one D1): test/conformance/<target>/.
 */
const target = process.env['CONFORMANCE_TARGET'] ?? 'node-file';

export default defineConfig({
  test: {
    include: ['test/conformance/cases/**/*.conformance.ts', `test/conformance/${target}/**/*.conformance.ts`],
    globalSetup: ['test/conformance/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One fork per target: the runner runs targets side by side, and the server is the busy process.
    poolOptions: { forks: { maxForks: 1, minForks: 1 } },
    fileParallelism: false,
    sequence: { sequencer: ConformanceSequencer },
  },
});
