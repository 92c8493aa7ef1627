// Finds or provides the Chromium that the browser end-to-end suite drives.
// Order: CHROMIUM_PATH, then a Chromium on PATH, then the build that ships
// inside the `@sparticuz/chromium` dev dependency (so `npm ci && npm test`
// needs no root, no apt and no download of its own), then Debian's `chromium`
// through apt-get when running as root or with passwordless sudo.
// Node-only tooling: used by scripts/test.mjs and the e2e harness.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync } from 'node:zlib';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PATH_NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath() {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const name of PATH_NAMES) {
      const file = join(dir, name);
      if (isExecutable(file)) return file;
    }
  }
  return undefined;
}

/** `--version` of a binary, or undefined when it cannot run (missing libraries, wrong arch). */
function versionOf(file, env = process.env) {
  const r = spawnSync(file, ['--version'], { encoding: 'utf8', env, timeout: 30_000 });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function missingLibraries(file) {
  const r = spawnSync('ldd', [file], { encoding: 'utf8' });
  return r.status === 0 && /not found/.test(r.stdout);
}

/**
 * Unpacks the npm-shipped build into node_modules/.cache once (brotli, ~70 MB
 * to ~200 MB); later runs reuse it. The unpack goes to a temporary name and is
 * renamed, so an interrupted run never leaves a half-written binary.
 */
function npmShipped() {
  let pkgDir;
  try {
    // Its exports map hides package.json: resolve the entry (build/index.js, or
    // build/cjs/index.cjs in 147) and step up to the directory that has it.
    pkgDir = dirname(createRequire(join(ROOT, 'package.json')).resolve('@sparticuz/chromium'));
    while (!existsSync(join(pkgDir, 'package.json')) || !existsSync(join(pkgDir, 'bin', 'chromium.br'))) {
      if (dirname(pkgDir) === pkgDir) return undefined;
      pkgDir = dirname(pkgDir);
    }
  } catch {
    return undefined;
  }
  const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const cacheDir = join(ROOT, 'node_modules', '.cache', 'svc-chromium', version);
  const binary = join(cacheDir, 'chromium');
  if (!existsSync(binary)) {
    process.stdout.write(`chromium: unpacking @sparticuz/chromium ${version} into ${cacheDir} (once)\n`);
    mkdirSync(cacheDir, { recursive: true });
    const tmp = `${binary}.${process.pid}.tmp`;
    writeFileSync(tmp, brotliDecompressSync(readFileSync(join(pkgDir, 'bin', 'chromium.br'))), { mode: 0o755 });
    renameSync(tmp, binary);
  }
  const env = { ...process.env };
  let extraEnv;
  // Built for Amazon Linux: where this system lacks a shared library, the package's own set fills the gap.
  if (missingLibraries(binary)) {
    const libDir = join(cacheDir, 'al2023');
    if (!existsSync(join(libDir, 'lib'))) {
      const tar = join(cacheDir, 'al2023.tar');
      writeFileSync(tar, brotliDecompressSync(readFileSync(join(pkgDir, 'bin', 'al2023.tar.br'))));
      mkdirSync(libDir, { recursive: true });
      spawnSync('tar', ['xf', tar, '-C', libDir], { stdio: 'inherit' });
      rmSync(tar, { force: true });
    }
    env.LD_LIBRARY_PATH = [join(libDir, 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(delimiter);
    extraEnv = { LD_LIBRARY_PATH: env.LD_LIBRARY_PATH };
  }
  const v = versionOf(binary, env);
  if (!v) return undefined;
  return { path: binary, version: v, source: `@sparticuz/chromium ${version} (npm dev dependency)`, env: extraEnv };
}

function canUseApt() {
  if (process.platform !== 'linux' || !existsSync('/usr/bin/apt-get')) return undefined;
  if (process.getuid?.() === 0) return [];
  return spawnSync('sudo', ['-n', 'true']).status === 0 ? ['sudo', '-n'] : undefined;
}

function aptInstall() {
  const prefix = canUseApt();
  if (!prefix) return undefined;
  process.stdout.write("chromium: installing Debian's chromium with apt-get (1-2 minutes)\n");
  const run = (args) => {
    const [cmd, ...rest] = [...prefix, ...args];
    return (
      spawnSync(cmd, rest, {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      }).status === 0
    );
  };
  if (!run(['apt-get', 'update', '-qq']) || !run(['apt-get', 'install', '-y', '-qq', 'chromium'])) return undefined;
  const path = '/usr/bin/chromium';
  const v = isExecutable(path) && versionOf(path);
  return v ? { path, version: v, source: "Debian's chromium (installed with apt-get)" } : undefined;
}

/**
 * Resolves the browser or throws one line saying what to install.
 * @returns {{ path: string, version: string, source: string, env?: Record<string, string> }}
 */
export function resolveChromium() {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    const v = isExecutable(fromEnv) && versionOf(fromEnv);
    if (!v) throw new Error(`CHROMIUM_PATH=${fromEnv} is not a runnable Chromium: fix the path or unset CHROMIUM_PATH`);
    return { path: fromEnv, version: v, source: 'CHROMIUM_PATH' };
  }
  const found = onPath();
  const v = found && versionOf(found);
  if (found && v) return { path: found, version: v, source: 'PATH' };
  const shipped = npmShipped() ?? aptInstall();
  if (shipped) return shipped;
  throw new Error(
    "no Chromium for the browser suite: run `npm ci` (it brings @sparticuz/chromium for Linux x64), install Debian's chromium (apt-get install chromium), or set CHROMIUM_PATH",
  );
}

// `node scripts/chromium.mjs` prints the browser the suite would use.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const c = resolveChromium();
    console.log(`chromium: ${c.version} from ${c.source}: ${c.path}`);
  } catch (err) {
    console.error(`chromium: ${err.message}`);
    process.exit(1);
  }
}
