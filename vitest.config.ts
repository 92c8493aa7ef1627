import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/helpers/slow-first-sequencer.js';

/**
 * Files that need a fresh module graph of their own: they assert what importing
 * a module does (a cached module would make the check vacuous) or reset the
 * module registry themselves (`vi.resetModules()`, which would also empty the
 * registry the other files of their worker share). They run in the `isolated`
 * project: every file re-imports the app. Add a file here when it depends on
 * module-level state being fresh, or mocks a module (`vi.mock`).
 */
const ISOLATED = [
  'test/api/import-side-effects.test.ts',
  'test/api/db/d1-failures.test.ts',
  'test/adapter/core/default-fetch.test.ts',
];

/**
 * Every other file shares its worker's module graph (`isolate: false`): each
 * file used to re-import the whole app, and that collect phase took two thirds
 * of the suite's time (667 s of CPU of 1,027 s). A file that changes process-wide
 * state (process.env, globalThis, the working directory, fake timers) restores
 * it in a finally/afterEach/afterAll, so the next file of the worker never sees it.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The pool's own setting: workers are reused across files; the `isolated` project re-imports per file.
    poolOptions: { forks: { maxForks: 2, minForks: 1, isolate: false } },
    reporters: ['default'],
    // The long files first, so neither fork runs one alone at the end.
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'node_modules/**', ...ISOLATED],
          isolate: false,
          // One package build (tsconfig.build.json) per run, shared by the files that consume it.
          globalSetup: ['test/helpers/built-package.setup.ts'],
          // Each file ends with the web globals (Request, Response, fetch, ...) its worker started with.
          setupFiles: ['test/helpers/web-globals.setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ISOLATED,
          isolate: true,
          poolOptions: { forks: { isolate: true } },
        },
      },
    ],
  },
});
