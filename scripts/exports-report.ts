/**
 * `npm run exports:report`: writes docs/exports.md, every name each package
 * entry point (package.json `exports`) exports, with its kind. The public
 * surface is what users can import, so a change to it must be a reviewed
 * diff of that file: `test/package/exports-report.test.ts` regenerates the
 * report in memory and fails when the committed one differs.
 * `npm run exports:report -- --check` exits 1 when the file is stale.
 *
 * The report lists names and kinds only (no file paths), so moving a module
 * behind an entry point does not change it; renaming, adding or removing an
 * export, or turning a value into a type-only export, does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

export const REPORT_FILE = 'docs/exports.md';
export const UPDATE_COMMAND = 'npm run exports:report';

interface ExportEntry {
  /** The import specifier, e.g. `svc-auth/core`. */
  entry: string;
  /** The TypeScript source the entry's `types` file is built from. */
  source: string;
}

/** The entry points of package.json `exports`, each mapped from its `dist/….d.ts` to the source file. */
export function entryPoints(root: string): ExportEntry[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | { types?: string }>;
  };
  const entries: ExportEntry[] = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const types = typeof target === 'string' ? undefined : target.types;
    if (!types) continue; // ./package.json
    const source = types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts');
    entries.push({ entry: pkg.name + subpath.slice(1), source });
  }
  return entries;
}

/** `function`, `class`, `const`, `interface`, `type`…; a name that is both a value and a type lists both. */
function kindsOf(checker: ts.TypeChecker, exported: ts.Symbol): string {
  const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const f = target.flags;
  const kinds: string[] = [];
  if (f & ts.SymbolFlags.Function) kinds.push('function');
  if (f & ts.SymbolFlags.Class) kinds.push('class');
  if (f & ts.SymbolFlags.Variable) kinds.push(variableKind(target));
  if (f & ts.SymbolFlags.Enum) kinds.push('enum');
  if (f & ts.SymbolFlags.Interface) kinds.push('interface');
  if (f & ts.SymbolFlags.TypeAlias) kinds.push('type');
  if (f & (ts.SymbolFlags.ValueModule | ts.SymbolFlags.NamespaceModule)) kinds.push('namespace');
  const kind = kinds.join(', ') || 'unknown';
  if (!(f & ts.SymbolFlags.Value) || !typeOnly(checker, exported)) return kind;
  // `export type` of a name that is a value and a type (a zod schema and its type) exports the type alone.
  const typeSide = kinds.filter((k) => k === 'interface' || k === 'type');
  return typeSide.length && !(f & (ts.SymbolFlags.Class | ts.SymbolFlags.Enum))
    ? typeSide.join(', ')
    : `${kind} (type only)`;
}

function variableKind(symbol: ts.Symbol): string {
  const decl = symbol.valueDeclaration;
  if (decl && ts.isVariableDeclaration(decl) && ts.isVariableDeclarationList(decl.parent)) {
    return decl.parent.flags & ts.NodeFlags.Const ? 'const' : 'let';
  }
  return 'const';
}

/** Whether a link of the re-export chain is `export type` / `import type`: the name then carries no value. */
function typeOnly(checker: ts.TypeChecker, exported: ts.Symbol): boolean {
  let current: ts.Symbol | undefined = exported;
  for (let hops = 0; current && current.flags & ts.SymbolFlags.Alias && hops < 32; hops++) {
    for (const d of current.declarations ?? []) {
      if (ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly)) return true;
      if (ts.isImportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly)) return true;
      if (ts.isImportClause(d) && d.isTypeOnly) return true;
    }
    current = checker.getImmediateAliasedSymbol(current);
  }
  return false;
}

/**
 * Packages whose declarations the report reads: those an entry point
 * re-exports from. Every other file under node_modules is read as empty
 * (kinds of our own exports do not depend on it), which keeps the program
 * small; an export from a package missing here shows as kind `unknown` and
 * the report refuses it.
 */
export const REEXPORTED_PACKAGES = ['@simplewebauthn/browser'];

function exportsProgram(root: string, files: string[]): ts.Program {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  const options: ts.CompilerOptions = { ...config?.options, noEmit: true, noLib: true, types: [] };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(fileName)?.[1];
    if (pkg !== undefined && !REEXPORTED_PACKAGES.includes(pkg))
      return ts.createSourceFile(fileName, '', languageVersion);
    return read(fileName, languageVersion, onError, shouldCreate);
  };
  return ts.createProgram(files, options, host);
}

/** Every export of every entry point, sorted, as Markdown (one `ts.createProgram` over the entry points). */
export function buildExportsReport(root: string): string {
  const entries = entryPoints(root);
  const files = entries.map((e) => join(root, e.source));
  const program = exportsProgram(root, files);
  const checker = program.getTypeChecker();
  const lines = [
    '# Public exports',
    '',
    `Every name each entry point of the package exports (package.json \`exports\`), with its kind. Generated by \`${UPDATE_COMMAND}\` (\`scripts/exports-report.ts\`); \`test/package/exports-report.test.ts\` fails when this file differs from the code, so a change to the public surface shows up here as a diff to review. What each name does: [adapters](adapters.md), [auth API](api.md), [client](client.md).`,
  ];
  entries.forEach((e, i) => {
    const sourceFile = program.getSourceFile(files[i]!);
    const moduleSymbol = sourceFile && checker.getSymbolAtLocation(sourceFile);
    if (!moduleSymbol) throw new Error(`${e.entry}: cannot read ${e.source}`);
    const rows = checker
      .getExportsOfModule(moduleSymbol)
      .map((s) => ({ name: s.getName(), kind: kindsOf(checker, s) }))
      .map((r) => {
        if (r.kind.startsWith('unknown'))
          throw new Error(
            `${e.entry}: the kind of ${r.name} is unknown; if it is re-exported from a package, add the package to REEXPORTED_PACKAGES`,
          );
        return r;
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    lines.push('', `## ${e.entry}`, '', `${rows.length} names.`, '', '| Name | Kind |', '| --- | --- |');
    for (const r of rows) lines.push(`| \`${r.name}\` | ${r.kind} |`);
  });
  return `${lines.join('\n')}\n`;
}

/** The lines one report has and the other lacks: `-` only in `before`, `+` only in `after`. */
export function reportDiff(before: string, after: string): string {
  const had = new Set(before.split('\n'));
  const has = new Set(after.split('\n'));
  return [
    ...[...had].filter((l) => !has.has(l)).map((l) => `- ${l}`),
    ...[...has].filter((l) => !had.has(l)).map((l) => `+ ${l}`),
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = join(import.meta.dirname, '..');
  const text = buildExportsReport(root);
  const path = join(root, REPORT_FILE);
  let current: string | null = null;
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    current = null;
  }
  if (current === text) console.log(`${REPORT_FILE}: up to date`);
  else if (process.argv.includes('--check')) {
    console.error(`${REPORT_FILE}: stale; run ${UPDATE_COMMAND}\n${reportDiff(current ?? '', text)}`);
    process.exitCode = 1;
  } else {
    writeFileSync(path, text);
    console.log(`${REPORT_FILE}: written`);
  }
}
