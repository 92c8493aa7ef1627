/**
 * The published package: `npm run build` output plus `bin/`, no TypeScript
 * source. A consumer's `npx svc` resolves `node_modules/.bin/svc` to the
 * package bin, which runs `dist/cli/main.js`.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/db/migrations.generated.js';
import { ROOT, removeDir, tempDir } from '../runtime/processes.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; files: string[]; bin: Record<string, string> };
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const exec = promisify(execFile);

describe('svc from the published package', () => {
  let dir: string | undefined;
  let consumer = '';

  beforeAll(async () => {
    dir = tempDir('cli-published');
    const installed = join(dir, 'pkg');
    mkdirSync(installed);
    copyFileSync(join(ROOT, 'package.json'), join(installed, 'package.json'));
    cpSync(join(ROOT, 'bin'), join(installed, 'bin'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(installed, 'node_modules'), 'dir');
    // --noCheck: the typecheck runs on its own; a NodeNext resolution mistake still fails when Node runs the output.
    await exec(process.execPath, [TSC, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(installed, 'dist'), '--noCheck'], { cwd: ROOT });
    consumer = join(dir, 'consumer');
    mkdirSync(join(consumer, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(installed, join(consumer, 'node_modules', pkg.name), 'dir');
    // What npm does for a dependency's bin.
    symlinkSync(join('..', pkg.name, pkg.bin['svc']!), join(consumer, 'node_modules', '.bin', 'svc'));
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, dependencies: { [pkg.name]: '*' } }));
  }, 180_000);

  afterAll(() => removeDir(dir));

  it('ships the bin: listed in files, executable, and pointing at a file that exists', () => {
    expect(pkg.files).toContain('bin');
    expect(existsSync(join(dir!, 'pkg', pkg.bin['svc']!))).toBe(true);
    expect(existsSync(join(dir!, 'pkg', 'dist', 'cli', 'main.js'))).toBe(true);
    expect(existsSync(join(dir!, 'pkg', 'cli'))).toBe(false);
  });

  it('runs `npx svc --help` in a consumer project from dist', async () => {
    const { stdout } = await exec('npx', ['--no-install', 'svc', '--help'], { cwd: consumer, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(stdout).toMatch(/^svc — the svc auth command line/);
    expect(stdout).toContain('doctor');
  }, 60_000);

  it('migrates a database with the bundled migrations from dist', async () => {
    const url = `file:${join(dir!, 'db', 'svc.db')}`;
    const { stdout } = await exec(join(consumer, 'node_modules', '.bin', 'svc'), ['migrate', '--json'], { cwd: consumer, encoding: 'utf8', env: { PATH: process.env['PATH'], DATABASE_URL: url } });
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, applied: MIGRATIONS.map((m) => m.tag) });
  }, 60_000);
});
