/**
 * The import boundaries of the tree. `common/` is the neutral home of what the
 * API (`src/`), the adapters (`adapter/`), the client and the OpenAPI document
 * share (the route table, the envelopes and their schemas, roles, encoding,
 * memo, redaction, body reading); it imports none of them, and the API and the
 * adapters never import each other. Inside the API, services and repositories
 * never reach up into the HTTP layer (routes, middleware, `http/`).
 * And what is shared is defined once: the session envelope, base64url, the
 * body-limit reader.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.(ts|tsx|mts)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

/** Every relative import of a file, as a repo-relative path. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(SPECIFIER)]
    .map((m) => m[1]!)
    .filter((s) => s.startsWith('.'))
    .map((s) => normalize(relative(ROOT, join(ROOT, dirname(file), s))));
}

/** `file → import` pairs where a file under one of `from` imports something under one of `to`. */
function crossings(from: string[], to: string[]): string[] {
  const inside = (path: string, dirs: string[]) => dirs.some((d) => path === d || path.startsWith(`${d}/`));
  return from.flatMap(sourceFiles).flatMap((f) =>
    importsOf(f)
      .filter((i) => inside(i, to))
      .map((i) => `${f} → ${i}`),
  );
}

describe('import boundaries', () => {
  it('finds imports the way the tree writes them (guards the scan itself)', () => {
    expect(importsOf('src/middleware/body.ts')).toContain('common/hono-request.js');
    expect(crossings(['common'], ['common']).length).toBeGreaterThan(3);
    expect(crossings(['adapter'], ['common']).length).toBeGreaterThan(10);
    expect(crossings(['src'], ['common']).length).toBeGreaterThan(10);
  });

  it('the API (src/) imports nothing from adapter/', () => {
    expect(crossings(['src'], ['adapter'])).toEqual([]);
  });

  it('the adapters (adapter/) import nothing from src/', () => {
    expect(crossings(['adapter'], ['src'])).toEqual([]);
  });

  it('common/ imports none of the API, the adapters, the client or the CLI', () => {
    expect(crossings(['common'], ['src', 'adapter', 'client', 'cli'])).toEqual([]);
  });

  it('the neutral adapter entries never reach node: code; only their Node twins install the Node transport', () => {
    // Bun, Deno and Workers bundlers resolve svc-auth/core and svc-auth/hono to these (package.json exports).
    const closure = (entry: string) => {
      const seen = new Set<string>();
      const visit = (file: string) => {
        const ts = file.replace(/\.js$/, '.ts');
        if (seen.has(ts)) return;
        seen.add(ts);
        importsOf(ts).forEach(visit);
      };
      visit(entry);
      return [...seen];
    };
    for (const entry of ['adapter/core/index.ts', 'adapter/hono/index.ts']) {
      const reached = closure(entry);
      expect(reached.length, entry).toBeGreaterThan(10);
      expect(
        reached.filter((f) => f.startsWith('adapter/node/') || f.startsWith('common/node/')),
        entry,
      ).toEqual([]);
      expect(
        reached.filter((f) => /from\s*['"]node:/.test(readFileSync(join(ROOT, f), 'utf8'))),
        entry,
      ).toEqual([]);
    }
    for (const entry of ['adapter/core/node.ts', 'adapter/hono/node.ts', 'adapter/express/index.ts'])
      expect(closure(entry), entry).toContain('adapter/node/default-transport.ts');
  });

  it('services and repositories never import the HTTP layer (routes, middleware, http/)', () => {
    expect(
      crossings(
        ['src/services', 'src/repositories'],
        ['src/routes', 'src/middleware', 'src/http', 'src/app.ts', 'src/app.js'],
      ),
    ).toEqual([]);
    expect(crossings(['src/repositories'], ['src/services'])).toEqual([]);
  });
});

describe('one definition of what is shared', () => {
  const code = ['src', 'common', 'adapter', 'client'].flatMap(sourceFiles);
  const defining = (pattern: RegExp) => code.filter((f) => pattern.test(readFileSync(join(ROOT, f), 'utf8')));

  it('the session envelope and the MFA body (common/session.ts)', () => {
    expect(defining(/(?:interface|const|type)\s+SessionEnvelope\s*(?:=\s*z\.|\{)/)).toEqual(['common/session.ts']);
    expect(defining(/(?:interface|const)\s+(?:MfaRequiredBody|MfaRequiredResponse)\s*(?:=\s*z\.|\{)/)).toEqual([
      'common/session.ts',
    ]);
  });

  it('base64url (common/encoding.ts)', () => {
    expect(defining(/(?:function|const)\s+(?:toBase64Url|fromBase64Url)\b/)).toEqual(['common/encoding.ts']);
  });

  it('the body-limit reader (common/body.ts)', () => {
    expect(defining(/\.getReader\(\)/)).toEqual(['common/body.ts']);
  });
});
