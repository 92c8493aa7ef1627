/**
 * Global setup of the unit suite: an empty directory for the run's shared
 * package build (test/helpers/built-package.ts builds into it on first use),
 * removed when the run ends.
 */
import type { TestProject } from 'vitest/node';
import { removeDir, tempDir } from '../runtime/processes.js';

export default function setup(project: TestProject): () => void {
  const dir = tempDir('built-run');
  project.provide('builtPackageRunDir', dir);
  return () => removeDir(dir);
}
