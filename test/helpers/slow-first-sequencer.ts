/**
 * The unit suite's file order: the known long files first, longest first, then
 * vitest's own order (its cached durations, else file size). Two forks drain
 * one queue, so a one-minute file that starts last runs alone at the end while
 * the other fork stands idle; a fresh clone (`npm ci && npm test`) has no
 * cached durations to avoid that. The list is the slowest files of measured
 * runs on the 2-core machine; a file missing from it only starts later.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const SLOW_FIRST = [
  'test/package/package.test.ts',
  'test/authz/authorization-matrix.test.ts',
  'test/runtime/d1.smoke.test.ts',
  'test/fuzz/adapter.fuzz.test.ts',
  'test/cli/config.test.ts',
  'test/soak/soak.test.ts',
  'test/runtime/exports.test.ts',
  'test/cli/admin.test.ts',
  'test/cli/doctor.test.ts',
  'test/runtime/node.smoke.test.ts',
  'test/fuzz/api.fuzz.test.ts',
  'test/api/routes/refresh-race.test.ts',
  'test/runtime/worker-refusal.smoke.test.ts',
  'test/cli/migrate.test.ts',
  'test/cli/cli.test.ts',
  'test/runtime/start.smoke.test.ts',
  'test/soak/flood.test.ts',
  'test/runtime/worker-bundle.test.ts',
];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = SLOW_FIRST.findIndex((p) => f.moduleId.endsWith(`/${p}`));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    const position = new Map(sorted.map((f, i) => [f, i]));
    return [...sorted].sort((a, b) => rank(a) - rank(b) || position.get(a)! - position.get(b)!);
  }
}
