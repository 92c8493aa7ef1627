/**
 * The public surface is reviewed, not accidental:
 * docs/exports.md lists every export of every package entry point, and this
 * test fails with the difference when the code's exports change without it.
 * `svc-auth/core` exports only what docs/adapters.md documents.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildExportsReport, REPORT_FILE, reportDiff, UPDATE_COMMAND } from '../../scripts/exports-report.js';
import { removeDir, tempDir } from '../runtime/processes.js';

const ROOT = join(import.meta.dirname, '../..');

/** The rows of one entry point's table: name → kind. */
function section(report: string, entry: string): Map<string, string> {
  const start = report.indexOf(`\n## ${entry}\n`);
  if (start < 0) throw new Error(`no section for ${entry}`);
  const end = report.indexOf('\n## ', start + 1);
  const rows = new Map<string, string>();
  for (const m of report.slice(start, end < 0 ? undefined : end).matchAll(/^\| `([^`]+)` \| ([^|]+) \|$/gm))
    rows.set(m[1]!, m[2]!.trim());
  return rows;
}

describe('public exports report', () => {
  const generated = buildExportsReport(ROOT);
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => removeDir(d)));

  it(`${REPORT_FILE} is what the entry points export`, () => {
    const committed = readFileSync(join(ROOT, REPORT_FILE), 'utf8');
    if (generated !== committed) {
      expect.fail(
        `${REPORT_FILE} is out of date: the public surface changed. Review the difference, then run \`${UPDATE_COMMAND}\` and commit the file.\n${reportDiff(committed, generated)}`,
      );
    }
  });

  it('has a section for every entry point of package.json exports', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    const entries = Object.keys(pkg.exports).filter((s) => s !== './package.json');
    for (const subpath of entries) expect(generated).toContain(`\n## svc-auth${subpath.slice(1)}\n`);
  });

  it('keeps svc-auth/core to documented names: no pipeline internals, every value documented in docs/adapters.md', () => {
    const core = section(generated, 'svc-auth/core');
    for (const internal of [
      'refreshKey',
      'processRefreshDedup',
      'ipLiteral',
      'buildQuery',
      'sessionResult',
      'ensureCookies',
      'selectTransport',
      'guardOrigin',
      'mergeCookies',
      'resolveOptions',
    ]) {
      expect(core.has(internal), internal).toBe(false);
    }
    const adapters = readFileSync(join(ROOT, 'docs/adapters.md'), 'utf8');
    const values = [...core].filter(([, kind]) => !/^(interface|type)$/.test(kind)).map(([name]) => name);
    expect(values.length).toBeGreaterThan(10);
    expect(values.filter((name) => !adapters.includes(`\`${name}`))).toEqual([]);
  });

  it('documents every value any entry point exports somewhere in docs/ or README.md (prose or example)', () => {
    const docs = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md') && f !== 'exports.md')
        .map((f) => `docs/${f}`),
    ]
      .map((f) => readFileSync(join(ROOT, f), 'utf8'))
      .join('\n');
    const undocumented: string[] = [];
    for (const entry of [...generated.matchAll(/^## (\S+)$/gm)].map((m) => m[1]!)) {
      for (const [name, kind] of section(generated, entry))
        if (!/^(interface|type)$/.test(kind) && !new RegExp(`\\b${name}\\b`).test(docs))
          undocumented.push(`${entry}: ${name}`);
    }
    expect(undocumented).toEqual([]);
  });

  it('names each kind; `export type` of a class is type only, of a value-and-type name just its type', () => {
    const dir = tempDir('exports-report');
    dirs.push(dir);
    mkdirSync(join(dir, 'lib'));
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({
        name: 'fixture',
        exports: { '.': { types: './dist/lib/index.d.ts' }, './package.json': './package.json' },
      }),
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', strict: true } }),
    );
    writeFileSync(
      join(dir, 'lib/impl.ts'),
      'export class Box {}\nexport function make() {}\nexport interface Shape {}\nexport type Id = string;\nexport enum Mode { A }\nexport const Schema = 1;\nexport type Schema = number;\n',
    );
    writeFileSync(
      join(dir, 'lib/index.ts'),
      "export { make, Mode } from './impl.js';\nexport type { Box, Shape, Id, Schema } from './impl.js';\nexport const limit = 1;\nexport let counter = 0;\nexport class Thing {}\n",
    );
    const rows = section(buildExportsReport(dir), 'fixture');
    expect(Object.fromEntries(rows)).toEqual({
      Box: 'class (type only)',
      Id: 'type',
      Mode: 'enum',
      Schema: 'type',
      Shape: 'interface',
      Thing: 'class',
      counter: 'let',
      limit: 'const',
      make: 'function',
    });
  });
});
