/**
 * `svc keys generate` hands out variables a production boot accepts, writes
 * them only to a fresh 0600 file (or over one with --force), and
 * `svc keys rotate` describes publish-then-switch with the code's numbers.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv as parseDotenv } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createAuthApi } from '../../src/index.js';
import { removeDir, tempDir } from '../runtime/processes.js';
import { svc } from './helpers.js';

const dir = tempDir('cli-keys');
afterAll(() => removeDir(dir));

/** A production environment that boots with the given key variables. */
const productionEnv = (keys: Record<string, string | undefined>) => ({
  NODE_ENV: 'production',
  ISSUER: 'https://auth.example.com',
  DATABASE_URL: ':memory:',
  API_SERVICE_TOKEN: 'a'.repeat(40),
  OAUTH_STATE_SECRET: 'b'.repeat(40),
  RPID: 'example.com',
  ORIGINS: 'https://app.example.com',
  ...keys,
});

// Each case writes its own file: they run side by side.
describe.concurrent('svc keys generate', () => {
  it('prints the three SVC_JWKS_* variables, and a production API boots with them and publishes the kid', async () => {
    const run = await svc(['keys', 'generate', '--kid', 'cli_test_1']);
    expect(run.code).toBe(0);
    const vars = parseDotenv(run.stdout);
    expect(Object.keys(vars).sort()).toEqual([
      'SVC_JWKS_ACTIVE_KID',
      'SVC_JWKS_KEY_cli_test_1_PRIVATE',
      'SVC_JWKS_PUBLIC_KEYS',
    ]);
    expect(vars['SVC_JWKS_ACTIVE_KID']).toBe('cli_test_1');
    expect(run.stderr).toMatch(/private key is on stdout/);

    const app = await createAuthApi({ env: productionEnv(vars), logger: { log() {} } });
    try {
      const jwks = (await (await app.request('/.well-known/jwks.json')).json()) as {
        keys: { kid: string; alg: string }[];
      };
      expect(jwks.keys).toEqual([expect.objectContaining({ kid: 'cli_test_1', alg: 'RS256' })]);
    } finally {
      await app.close();
    }
  }, 30_000);

  it('generates a fresh pair and a kid that parseEnv accepts when --kid is omitted', async () => {
    const [a, b] = await Promise.all([svc(['keys', 'generate', '--json']), svc(['keys', 'generate', '--json'])]);
    expect(a.json.kid).toMatch(/^k\d{8}_[0-9a-f]{6}$/);
    expect(a.json.kid).not.toBe(b.json.kid);
    expect(a.json.variables['SVC_JWKS_PUBLIC_KEYS']).not.toBe(b.json.variables['SVC_JWKS_PUBLIC_KEYS']);
  });

  it('writes a 0600 file with --out, prints no key material, and the file boots the API', async () => {
    const file = join(dir, 'keys.env');
    const run = await svc(['keys', 'generate', '--kid', 'filed', '--out', file], {}, { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`wrote signing key filed to ${file} (mode 0600)\n`);
    expect(run.stdout + run.stderr).not.toContain('PRIVATE KEY');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const app = await createAuthApi({
      env: productionEnv(parseDotenv(readFileSync(file, 'utf8'))),
      logger: { log() {} },
    });
    await app.close();
  }, 30_000);

  it('refuses to overwrite an existing file without --force and leaves it untouched', async () => {
    const file = join(dir, 'existing.env');
    writeFileSync(file, 'KEEP=1\n');
    const run = await svc(['keys', 'generate', '--out', file, '--json']);
    expect(run.code).toBe(1);
    expect(run.json).toMatchObject({ ok: false, error: 'file_exists' });
    expect(readFileSync(file, 'utf8')).toBe('KEEP=1\n');
  });

  it('replaces an existing file with --force, as 0600', async () => {
    const file = join(dir, 'forced.env');
    writeFileSync(file, 'OLD=1\n', { mode: 0o644 });
    const run = await svc(['keys', 'generate', '--kid', 'forced', '--out', file, '--force']);
    expect(run.code).toBe(0);
    expect(parseDotenv(readFileSync(file, 'utf8'))['SVC_JWKS_ACTIVE_KID']).toBe('forced');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('fails in one line and leaves nothing behind when the directory does not exist', async () => {
    const run = await svc(['keys', 'generate', '--out', join(dir, 'missing', 'k.env')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^svc: error: cannot write .*missing\/k\.env \(ENOENT\)\n$/);
  });

  it('refuses --force without --out as a usage error', async () => {
    const run = await svc(['keys', 'generate', '--force']);
    expect(run).toMatchObject({ code: 2, stderr: 'svc: error: --force only applies with --out <file>\n' });
  });
});

describe('svc keys rotate', () => {
  it('gives publish-then-switch steps with the adapter JWKS cache and names the current kids', async () => {
    const run = await svc(['keys', 'rotate', '--json'], {
      SVC_JWKS_ACTIVE_KID: 'old_1',
      SVC_JWKS_PUBLIC_KEYS: '{"keys":[{"kid":"old_1","pem":"x"}]}',
    });
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ ok: true, activeKid: 'old_1', publishedKids: ['old_1'], jwksCacheSeconds: 300 });
    const steps: string[] = run.json.steps;
    expect(steps.findIndex((s) => s.startsWith('Publish'))).toBeLessThan(
      steps.findIndex((s) => s.startsWith('Switch')),
    );
    expect(steps.join('\n')).toContain('keep SVC_JWKS_ACTIVE_KID=old_1');
  });
});
