/**
 * The package as built for publishing (`tsc -p tsconfig.build.json`, emit only),
 * built once per vitest run and shared by the files that consume it
 * (test/runtime/exports.test.ts, test/runtime/default-transport.test.ts,
 * test/package/package.test.ts). Each used to build its own copy: ~35 s of CPU
 * each, in the same run, from the same tree.
 *
 * The directory holds what an installed package holds: `package.json`, `dist/`,
 * and `node_modules` linked to the repo's (its dependencies). Consumers only
 * read it; each file still makes its own consumer project next to it.
 *
 * Sharing across the test workers (separate processes) goes through the file
 * system: `test/helpers/built-package.setup.ts` (a global setup) makes an empty
 * run directory and provides its path; the first worker that asks takes a lock
 * (an atomic mkdir) and builds, the others wait for its `ready` (or `failed`)
 * marker. Nothing is built in a run that has no file asking for it. A file run
 * without that global setup (another config) builds into its own temporary
 * directory, as before.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { ROOT, tempDir } from '../runtime/processes.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** An empty directory for this run's shared package build (built-package.setup.ts). */
    builtPackageRunDir: string;
  }
}

const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const WAIT_MS = 300_000;

/** Writes package.json, dist/ (`--noCheck`: `npm test` typechecks on its own) and the node_modules link into `pkg`. */
async function build(pkg: string): Promise<void> {
  mkdirSync(pkg, { recursive: true });
  copyFileSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'), 'dir');
  // Async on purpose: a synchronous child blocks the vitest worker's event loop and its RPC times out.
  await promisify(execFile)(
    process.execPath,
    [TSC, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(pkg, 'dist'), '--noCheck'],
    { cwd: ROOT, encoding: 'utf8' },
  );
}

let shared: Promise<string> | undefined;

/**
 * The built package's directory (read only). Without the run directory, the
 * build goes into `ownDir()` (the caller removes it with its own temporary files).
 */
export async function builtPackage(ownDir: () => string = () => tempDir('built')): Promise<string> {
  let runDir: string | undefined;
  try {
    runDir = inject('builtPackageRunDir');
  } catch {
    runDir = undefined;
  }
  if (!runDir || !existsSync(runDir)) {
    const pkg = join(ownDir(), 'pkg');
    await build(pkg);
    return pkg;
  }
  shared ??= fromRunDir(runDir);
  return shared;
}

/** Builds into the run directory if this worker wins the lock, else waits for the winner's marker. */
async function fromRunDir(runDir: string): Promise<string> {
  const pkg = join(runDir, 'pkg');
  const ready = join(runDir, 'ready');
  const failed = join(runDir, 'failed');
  let builder: boolean;
  try {
    mkdirSync(join(runDir, 'lock'));
    builder = true;
  } catch {
    builder = false;
  }
  if (builder) {
    try {
      await build(pkg);
      writeFileSync(ready, '');
    } catch (err) {
      writeFileSync(failed, String((err as Error).stack ?? err));
      throw err;
    }
    return pkg;
  }
  const deadline = Date.now() + WAIT_MS;
  while (!existsSync(ready)) {
    if (existsSync(failed)) throw new Error(`the shared package build failed:\n${readFileSync(failed, 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`the shared package build in ${runDir} did not finish in ${WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return pkg;
}
