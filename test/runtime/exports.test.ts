/**
 * The published package shape: `npm run build` (tsconfig.build.json) output
 * consumed by a plain Node ESM project through the `exports` map, types
 * included, with the bundled migrations applied from dist.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, removeDir, tempDir } from './processes.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; exports: Record<string, { types?: string; default?: string } | string> };
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

describe('package exports (built dist)', () => {
  let dir: string | undefined;
  let consumer = '';

  beforeAll(() => {
    dir = tempDir('exports');
    // The package as installed: package.json + dist/ built from this tree, its dependencies linked.
    const installed = join(dir, 'pkg');
    mkdirSync(installed);
    copyFileSync(join(ROOT, 'package.json'), join(installed, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(installed, 'node_modules'), 'dir');
    // `npm run build` is `tsc -p tsconfig.build.json`; --noCheck because `npm test` typechecks first
    // (a NodeNext resolution mistake still fails below, when Node imports the output).
    execFileSync(process.execPath, [TSC, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(installed, 'dist'), '--noCheck'], { cwd: ROOT, stdio: 'pipe' });
    // A consumer project depending on it.
    consumer = join(dir, 'consumer');
    mkdirSync(join(consumer, 'node_modules'), { recursive: true });
    symlinkSync(installed, join(consumer, 'node_modules', pkg.name), 'dir');
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
  }, 120_000);

  afterAll(() => removeDir(dir));

  it('points every exports entry at files the build produced', () => {
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      const files = typeof target === 'string' ? [target] : [target.types, target.default].filter((f): f is string => !!f);
      for (const f of files) expect(existsSync(join(dir!, 'pkg', f)), `${subpath} → ${f}`).toBe(true);
    }
  });

  it('resolves svc-auth/api for a plain Node ESM consumer and boots from dist with bundled migrations', () => {
    const script = `
      const { createAuthApi, ConfigError } = await import('svc-auth/api');
      if (typeof createAuthApi !== 'function' || typeof ConfigError !== 'function') throw new Error('missing exports');
      const app = await createAuthApi({ env: {
        ISSUER: 'http://127.0.0.1:1', DATABASE_URL: ':memory:', APP_NAME: 'x', DEFAULT_ROLES: 'user',
        AVAILABLE_ROLES: 'user,admin', LOGIN_METHODS: 'passkey', ACCESS_TOKEN_TTL: '15m', REFRESH_TOKEN_TTL: '1d',
        RATE_LIMIT: '10', DELAY_AFTER: '0', RPID: 'localhost', ORIGINS: 'http://localhost:3000' },
        logger: { log() {} } });
      const res = await app.request('/.well-known/jwks.json');
      const body = await res.json();
      console.log(JSON.stringify({ status: res.status, kid: body.keys[0].kid, resolved: import.meta.resolve('svc-auth/api') }));
      await app.close();
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer, encoding: 'utf8' });
    const result = JSON.parse(out.trim().split('\n').pop()!);
    expect(result).toMatchObject({ status: 200, kid: 'dev-main' });
    expect(result.resolved).toMatch(/\/dist\/src\/index\.js$/);
  });

  it('ships types that a NodeNext TypeScript consumer can use', () => {
    writeFileSync(
      join(consumer, 'index.ts'),
      `import { createAuthApi, type EnvRecord } from 'svc-auth/api';\nconst env: EnvRecord = {};\nexport const app: Promise<{ fetch: (r: Request) => Response | Promise<Response> }> = createAuthApi({ env });\n`,
    );
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, lib: ['ES2022', 'DOM'], types: [] }, files: ['index.ts'] }),
    );
    execFileSync(process.execPath, [TSC, '-p', join(consumer, 'tsconfig.json')], { cwd: consumer, encoding: 'utf8' });
  }, 30_000);
});
