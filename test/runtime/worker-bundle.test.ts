/**
 * Size budget of the API worker as Workers would deploy it
 * (`wrangler deploy --dry-run --minify`, gzip -9). Measured on 2026-11-25:
 * 375 KB gzip before, 307 KB after importing zod as a namespace
 * (`import * as z from 'zod'`): zod's `z` re-export object keeps every locale
 * (~300 KB minified) in the bundle because esbuild cannot tree-shake its
 * members, while the star import lets it drop what is unused.
 *
 * The limit is the measured size plus ~7% for growth; it fails loudly on the
 * regressions that matter (the locales coming back cost +68 KB gzip).
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, removeDir, tempDir } from './processes.js';

export const WORKER_GZIP_LIMIT_BYTES = 330_000;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('API worker bundle', () => {
  const dir = tempDir('worker-bundle');
  afterAll(() => removeDir(dir));

  it(`is under ${WORKER_GZIP_LIMIT_BYTES} bytes gzip with wrangler's own build`, async () => {
    const out = join(dir, 'out');
    // A failed build rejects with wrangler's output in the error.
    await promisify(execFile)(process.execPath, [BIN.wrangler, 'deploy', '--dry-run', '--minify', '--outdir', out, '--config', join(ROOT, 'wrangler.toml')], {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1', WRANGLER_LOG_PATH: join(dir, 'logs') },
    });
    const code = readFileSync(join(out, 'worker.js'));
    const gzipBytes = gzipSync(code, { level: 9 }).length;
    console.log(`API worker: ${code.length} B minified, ${gzipBytes} B gzip (limit ${WORKER_GZIP_LIMIT_BYTES})`);
    expect(gzipBytes).toBeLessThan(WORKER_GZIP_LIMIT_BYTES);
    expect(code.toString('utf8')).not.toMatch(/from\s*["']node:/);
  }, 120_000);

  it("imports zod as a namespace everywhere in the runtime code (the `{ z }` form keeps every locale)", () => {
    const offenders = ['src', 'adapter', 'client']
      .flatMap((d) => sourceFiles(join(ROOT, d)))
      .filter((f) => /^import \{[^}]*\bz\b[^}]*\} from 'zod/m.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f));
    expect(offenders).toEqual([]);
  });
});
