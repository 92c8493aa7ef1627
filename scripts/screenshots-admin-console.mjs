/**
 * `npm run docs:screenshots`: regenerates the committed PNGs of the admin
 * console under docs/admin-console/ by running its browser end-to-end
 * scenario (test/e2e/admin-console.e2e.test.ts) with SVC_DOCS_SCREENSHOTS=1:
 * the real stack of `npm start`, real Chromium, real data from the scenario.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const vitest = join(ROOT, 'node_modules/vitest/vitest.mjs');
const run = spawnSync(
  process.execPath,
  [vitest, 'run', '--config', 'vitest.e2e.config.ts', 'test/e2e/admin-console.e2e.test.ts'],
  {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, SVC_DOCS_SCREENSHOTS: '1' },
  },
);
if (run.status === 0) console.log('docs/admin-console/*.png regenerated');
process.exit(run.status ?? 1);
