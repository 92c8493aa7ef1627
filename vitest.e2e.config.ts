import { defineConfig } from 'vitest/config';

// The browser end-to-end suite (`npm run test:e2e`, last step of `npm test`):
// one fork, files one after another; each file starts its own stack and browser.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    testTimeout: 90_000,
    hookTimeout: 90_000,
    pool: 'forks',
    poolOptions: { forks: { singleFork: true } },
    fileParallelism: false,
    reporters: ['default'],
  },
});
