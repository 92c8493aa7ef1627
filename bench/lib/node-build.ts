/**
 * svc's processes on Node as users run them: compiled JavaScript. The package ships `dist/`, built by
 * tsc, and Better Auth runs from its own compiled files; svc's TypeScript run through tsx instead pays
 * for tsx's output (a `__name` call wrapping every named closure, kept for stack traces) on every
 * request: ~8% more CPU per "who am I" through both processes (the median of eight alternating pairs,
 * docs/performance.md). Bun runs TypeScript with its own transpiler and measured the same either way,
 * so Bun keeps the source.
 *
 * `nodeRunner(tree)` compiles the bench's Node entries of `tree` (the API's `src/node.ts` and the
 * app `bench/lib/svc-app.ts`, with everything they import) once per process, with the tree's own
 * compiler options as `npm run build` does, into `<tree>/node_modules/.cache/svc-bench-node/`
 * (incremental: a second run recompiles only what changed), and returns the argv that runs a file
 * of that tree on Node. `NODE_SVC=tsx` runs the TypeScript through tsx instead, for comparison.
 *
 * @example
 * const argv = nodeRunner(ROOT)(join(ROOT, 'src/node.ts')); // ['/…/node_modules/.cache/svc-bench-node/src/node.js']
 * start(process.execPath, argv, { env });
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BIN } from '../../test/runtime/processes.js';

/** The Node entries the benches start; everything they import (dynamic imports included) comes with them. */
const ENTRIES = ['src/node.ts', 'bench/lib/svc-app.ts'];

/** How svc's Node processes run: `compiled` (the default) or `tsx`. */
export const nodeSvcMode = (): 'compiled' | 'tsx' => (process.env['NODE_SVC'] === 'tsx' ? 'tsx' : 'compiled');

const built = new Map<string, string>();

/** Where tsc writes `path` (relative to the tree) in `out`. */
const outputOf = (out: string, path: string) => join(out, path).replace(/\.ts$/, '.js');

/** Compiles `tree`'s Node entries (once per process) and returns the output directory. */
function compile(tree: string): string {
  const done = built.get(tree);
  if (done) return done;
  const out = join(tree, 'node_modules/.cache/svc-bench-node');
  mkdirSync(out, { recursive: true });
  // Inside node_modules Node looks for no package scope above the file, so the output says it is ESM itself.
  writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n');
  // The tree's own options (target, strictness) with what tsconfig.build.json changes for emitting.
  const config = join(out, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(tree, 'tsconfig.json'),
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        noEmit: false,
        declaration: false,
        sourceMap: false,
        incremental: true,
        tsBuildInfoFile: join(out, '.tsbuildinfo'),
        outDir: out,
        rootDir: tree,
      },
      include: [],
      files: ENTRIES.map((f) => join(tree, f)),
    }),
  );
  const startedMs = Date.now();
  process.stdout.write(`compiling svc's Node entries with tsc, as the package is built (${relative(tree, out)}) … `);
  let typeErrors = '';
  try {
    execFileSync(join(tree, 'node_modules/.bin/tsc'), ['-p', config], { stdio: 'pipe' });
  } catch (e) {
    // tsc still writes every file when the types are wrong (exit code 2), as tsx would run them: a tree
    // in progress can be measured, with the errors shown. Anything else (no output) stops the bench.
    const { status, stdout } = e as { status?: number; stdout?: Buffer };
    const output = stdout?.toString() ?? String(e);
    if (status !== 2 || !ENTRIES.every((f) => existsSync(outputOf(out, f))))
      throw new Error(`tsc failed on ${tree}; run \`npx tsc -p ${config}\` to see why:\n${output.slice(0, 2000)}`);
    typeErrors = output;
  }
  console.log(`${((Date.now() - startedMs) / 1000).toFixed(1)} s`);
  if (typeErrors)
    console.log(`  (tsc found type errors and compiled anyway; the first of them:)\n${typeErrors.slice(0, 1000)}`);
  built.set(tree, out);
  return out;
}

/** The argv that runs `file` (an absolute path inside `tree`) on Node: its compiled output, or tsx on the source. */
export function nodeRunner(tree: string): (file: string) => string[] {
  if (nodeSvcMode() === 'tsx') return (file) => [...BIN.tsxNode, file];
  const out = compile(tree);
  return (file) => [outputOf(out, relative(tree, file))];
}
