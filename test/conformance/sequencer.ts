/**
 * Runs the shared cases first (by path) and a target's own cases (several
 * instances, floods) last, so a flood's aftermath never reaches a shared case
 * and the order is the same on every run.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export default class ConformanceSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const shared = (f: TestSpecification) => (f.moduleId.includes('/test/conformance/cases/') ? 0 : 1);
    return [...files].sort((a, b) => shared(a) - shared(b) || a.moduleId.localeCompare(b.moduleId));
  }
}
