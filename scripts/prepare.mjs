// `prepare`: builds dist/ when svc is installed as a dependency from a git URL
// (`npm install github:<owner>/svc`) or a directory (`npm install --install-links
// ../svc`), where npm runs `prepare` in the package's own directory and then
// packs it by `files` — without dist/ the exports and the `svc` bin point at
// nothing (ERR_MODULE_NOT_FOUND). A tarball from `npm pack` already holds dist/
// (`prepack` builds it) and npm runs no `prepare` for tarballs.
//
// npm also runs `prepare` after `npm ci`/`npm install` in this repo itself
// (when scripts are on: this repo's .npmrc turns them off, a user's config or
// `--ignore-scripts=false` may not); there the build would add ~80 s under load (the typecheck and tests run the
// TypeScript source, and `npm run build` is one command away), so it is
// skipped. The signal: npm sets INIT_CWD to the directory it was started in.
// The repo's own install starts inside this directory; a consumer's install
// starts in the consumer's app, and a git dependency's preparation runs in a
// clone under npm's cache (its nested `npm install` starts inside the clone and
// skips, the packing step that follows starts in the app and builds — once).
import { spawnSync } from 'node:child_process';
import { realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** True when `dir` is ROOT or below it. */
function inside(dir) {
  let real;
  try {
    real = realpathSync(dir);
  } catch {
    return false;
  }
  const rel = relative(realpathSync(ROOT), real);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

const initCwd = process.env.INIT_CWD;
if (initCwd && inside(initCwd)) process.exit(0);

process.stdout.write('svc-auth: building dist/ for this install (tsc -p tsconfig.build.json)\n');
rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
let tsc;
try {
  tsc = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  // A clone installed with --omit=dev, say: one line instead of a stack.
  console.error(
    'svc-auth: cannot build dist/: typescript (a dev dependency) is missing here; run npm ci in the clone, or install a tarball from npm pack',
  );
  process.exit(1);
}
const r = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
process.exit(r.status ?? 1);
