/**
 * One supported Node: package.json's `engines`, every
 * package `npm ci` installs, the Node running this suite (CI's) and the docs
 * agree. A dependency whose `engines.node` excludes the oldest Node svc claims
 * makes `npm ci` print EBADENGINE — @sparticuz/chromium 149+ asks for
 * ^22.17.0 || >=24.0.0, so the test browser is pinned to 147.0.0 (>=20.11.0).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../runtime/processes.js';

// semver comes with npm's tooling (@arethetypeswrong/cli depends on it); it has no bundled types.
const semver = createRequire(join(ROOT, 'package.json'))('semver') as {
  minVersion: (range: string) => { version: string } | null;
  satisfies: (version: string, range: string) => boolean;
};
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { engines: { node: string } };
const lock = JSON.parse(read('package-lock.json')) as {
  packages: Record<string, { engines?: { node?: string } | string[] }>;
};
const oldest = semver.minVersion(pkg.engines.node)!.version;

describe('Node versions', () => {
  it("the Node running the suite (CI's) is one package.json's engines allows", () => {
    expect(semver.satisfies(process.version, pkg.engines.node), `${process.version} vs ${pkg.engines.node}`).toBe(true);
  });

  it('every locked package accepts the oldest Node svc supports and this one: npm ci prints no EBADENGINE', () => {
    const refusing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (!path || !range) continue;
      for (const v of [oldest, process.version])
        if (!semver.satisfies(v, range)) refusing.push(`${path} (node ${range}) refuses ${v}`);
    }
    expect(refusing).toEqual([]);
  });

  it('README.md, docs/cli.md and docs/deploying.md state the same minimum', () => {
    const short = oldest.replace(/\.0$/, '');
    expect(read('README.md')).toContain(`Node.js ≥ ${short}`);
    expect(read('docs/cli.md')).toContain(`Node (≥ ${short})`);
    expect(read('docs/deploying.md')).toContain(`Node ≥ ${short}`);
  });
});
