/**
 * Size budget of the API worker as Workers would deploy it
 * (`wrangler deploy --dry-run --minify`, gzip -9). Measured on 2026-11-25:
 * 375 KB gzip before, 307 KB after importing zod as a namespace
 * (`import * as z from 'zod'`): zod's `z` re-export object keeps every locale
 * (~300 KB minified) in the bundle because esbuild cannot tree-shake its
 * members, while the star import lets it drop what is unused. Measured on
 * 2026-11-26 (this test's zlib gzip -9): 322.5 KB gzip (1097 KB minified)
 * before, 312.1 KB with the runtime schemas on zod/mini (zod 104 → 65 KB
 * minified), 307.2 KB (1132 KB minified) once `GET /openapi.json` serves the
 * committed docs/openapi.json instead of building it with `z.toJSONSchema`
 * (zod 37 KB; the document adds 133 KB minified but only ~12 KB gzip, less
 * than the generator and the operation tables it replaces).
 *
 * The limit is the measured size (307,160 B) plus ~5% (322,500 B) for growth;
 * it fails loudly on the regressions that matter (every zod locale coming
 * back costs +68 KB gzip); the import rule below keeps classic zod out.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, removeDir, tempDir } from './processes.js';

export const WORKER_GZIP_LIMIT_BYTES = 322_500;

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

  it('never imports classic zod in the runtime code: zod/mini as a namespace, and one locale by name', () => {
    // `{ z }` or `z.locales.en` would keep every locale; classic `zod` ~40 KB minified more than zod/mini.
    const allowed = [/^import (type )?\* as z from 'zod\/mini';$/, /^import \{ [\w, ]+ \} from 'zod\/locales';$/];
    const offenders = ['src', 'adapter', 'client']
      .flatMap((d) => sourceFiles(join(ROOT, d)))
      .flatMap((f) =>
        [...readFileSync(f, 'utf8').matchAll(/^(?:import|export)\b[^;]*?from\s*['"]zod(?:\/[^'"]*)?['"];?/gms)]
          .map((m) => m[0].replace(/\s+/g, ' '))
          .filter((statement) => !allowed.some((r) => r.test(statement)))
          .map((statement) => `${relative(ROOT, f)}: ${statement}`),
      );
    expect(offenders).toEqual([]);
  });
});
