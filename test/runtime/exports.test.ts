/**
 * The published package shape: `npm run build` (tsconfig.build.json) output
 * consumed by a plain Node ESM project through the `exports` map, types
 * included, with the bundled migrations applied from dist.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtPackage } from '../helpers/built-package.js';
import { ROOT, removeDir, tempDir } from './processes.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, Record<string, string> | string>;
};
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
// Async on purpose: a synchronous child blocks the vitest worker's event loop and its RPC times out.
const run = async (args: string[], cwd: string) =>
  (await promisify(execFile)(process.execPath, args, { cwd, encoding: 'utf8' })).stdout;

describe('package exports (built dist)', () => {
  let dir: string | undefined;
  let consumer = '';
  let installed = '';

  beforeAll(async () => {
    dir = tempDir('exports');
    // The package as installed: package.json + dist/ built from this tree (once per run, shared with
    // default-transport.test.ts and package.test.ts), its dependencies linked. `npm run build` is
    // `tsc -p tsconfig.build.json`; --noCheck because `npm test` typechecks on its own (a NodeNext
    // resolution mistake still fails below, when Node imports the output).
    installed = await builtPackage(() => dir!);
    // A consumer project depending on it.
    consumer = join(dir, 'consumer');
    mkdirSync(join(consumer, 'node_modules'), { recursive: true });
    symlinkSync(installed, join(consumer, 'node_modules', pkg.name), 'dir');
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
  }, 300_000);

  afterAll(() => removeDir(dir));

  it('points every exports entry at files the build produced', () => {
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      // Every condition's target (types, the runtime conditions, node, default).
      const files = typeof target === 'string' ? [target] : Object.values(target);
      for (const f of files) expect(existsSync(join(installed, f)), `${subpath} → ${f}`).toBe(true);
    }
  });

  it('resolves svc-auth/api for a plain Node ESM consumer and boots from dist with bundled migrations', async () => {
    const script = `
      const { createAuthApi, ConfigError } = await import('svc-auth/api');
      if (typeof createAuthApi !== 'function' || typeof ConfigError !== 'function') throw new Error('missing exports');
      const app = await createAuthApi({ env: {
        ISSUER: 'http://127.0.0.1:1', API_SERVICE_TOKEN: 'exports-test-service-token-0123456789abcdef', DATABASE_URL: ':memory:', APP_NAME: 'x', DEFAULT_ROLES: 'user',
        AVAILABLE_ROLES: 'user,admin', LOGIN_METHODS: 'passkey', ACCESS_TOKEN_TTL: '15m', REFRESH_TOKEN_TTL: '1d',
        RATE_LIMIT: '10', DELAY_AFTER: '0', RPID: 'localhost', ORIGINS: 'http://localhost:3000' },
        logger: { log() {} } });
      const res = await app.request('/.well-known/jwks.json');
      const body = await res.json();
      console.log(JSON.stringify({ status: res.status, kid: body.keys[0].kid, resolved: import.meta.resolve('svc-auth/api') }));
      await app.close();
    `;
    const out = await run(['--input-type=module', '-e', script], consumer);
    const result = JSON.parse(out.trim().split('\n').pop()!);
    expect(result).toMatchObject({ status: 200, kid: 'dev-main' });
    expect(result.resolved).toMatch(/\/dist\/src\/index\.js$/);
  });

  it('resolves createBcryptPool from svc-auth/node: the worker loads bcrypt from the installed package', async () => {
    const script = `
      const { createBcryptPool } = await import('svc-auth/node');
      const pool = createBcryptPool(1);
      const hash = await pool.hash('a'.repeat(43), 4);
      const answers = [await pool.compare('a'.repeat(43), hash), await pool.compare('b'.repeat(43), hash)];
      await pool.close();
      console.log(JSON.stringify({ prefix: hash.slice(0, 7), answers, resolved: import.meta.resolve('svc-auth/node') }));
    `;
    const out = await run(['--input-type=module', '-e', script], consumer);
    const result = JSON.parse(out.trim().split('\n').pop()!);
    expect(result).toMatchObject({ prefix: '$2b$04$', answers: [true, false] });
    expect(result.resolved).toMatch(/\/dist\/adapter\/node\/index\.js$/);
  });

  it('ships types that a NodeNext TypeScript consumer can use', async () => {
    writeFileSync(
      join(consumer, 'index.ts'),
      `import { createAuthApi, type EnvRecord } from 'svc-auth/api';\nconst env: EnvRecord = {};\nexport const app: Promise<{ fetch: (r: Request) => Response | Promise<Response> }> = createAuthApi({ env });\n`,
    );
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          lib: ['ES2022', 'DOM'],
          types: [],
        },
        files: ['index.ts'],
      }),
    );
    await run([TSC, '-p', join(consumer, 'tsconfig.json')], consumer);
  }, 30_000);

  it('resolves svc-auth/core and svc-auth/hono: a Hono app mounts the adapter and its guard refuses an anonymous request', async () => {
    // The consumer's own Hono app: it depends on hono itself, as a real app does.
    if (!existsSync(join(consumer, 'node_modules', 'hono')))
      symlinkSync(join(ROOT, 'node_modules', 'hono'), join(consumer, 'node_modules', 'hono'), 'dir');
    const script = `
      const { Hono } = await import('hono');
      const { svcAdapter, requireAuth } = await import('svc-auth/hono');
      const { ROUTES, satisfiesAny } = await import('svc-auth/core');
      const opts = { authServerUrl: 'http://127.0.0.1:1', audience: 'http://127.0.0.1:1', issuer: 'http://localhost:3000',
        cookieSecret: 'c'.repeat(32), serviceSecret: 's'.repeat(32) };
      const app = new Hono();
      app.route('/auth', svcAdapter(opts));
      app.get('/app', requireAuth({ cookieSecret: opts.cookieSecret, issuer: opts.issuer }), (c) => c.text('in'));
      const res = await app.request('/app');
      console.log(JSON.stringify({ status: res.status, routes: ROUTES.length, admin: satisfiesAny(['admin'], ['admin:read']),
        core: import.meta.resolve('svc-auth/core'), hono: import.meta.resolve('svc-auth/hono') }));
    `;
    const result = JSON.parse((await run(['--input-type=module', '-e', script], consumer)).trim().split('\n').pop()!);
    expect(result.status).toBe(401);
    expect(result.routes).toBeGreaterThan(30);
    expect(result.admin).toBe(true);
    // Under Node, the `node` condition: the entries whose default `fetch` is nodeUpstreamFetch (default-transport.test.ts).
    expect(result.core).toMatch(/\/dist\/adapter\/core\/node\.js$/);
    expect(result.hono).toMatch(/\/dist\/adapter\/hono\/node\.js$/);
  }, 30_000);

  it('resolves svc-auth/express (Express 5 Router, Node only) and types req.user through the augmentation', async () => {
    const script = `
      const { svcExpressAdapter, svcExpressTotpBridge, requireAuth, requireRole, getUser } = await import('svc-auth/express');
      const opts = { authServerUrl: 'http://127.0.0.1:1', audience: 'http://127.0.0.1:1', issuer: 'http://localhost:3000',
        cookieSecret: 'c'.repeat(32), serviceSecret: 's'.repeat(32) };
      const router = svcExpressAdapter(opts);
      console.log(JSON.stringify({ router: typeof router, stack: router.stack.length, bridge: typeof svcExpressTotpBridge(opts),
        guards: [requireAuth, requireRole, getUser].map((f) => typeof f), resolved: import.meta.resolve('svc-auth/express') }));
    `;
    const result = JSON.parse((await run(['--input-type=module', '-e', script], consumer)).trim().split('\n').pop()!);
    expect(result).toMatchObject({
      router: 'function',
      bridge: 'function',
      guards: ['function', 'function', 'function'],
    });
    expect(result.stack).toBeGreaterThan(70);
    expect(result.resolved).toMatch(/\/dist\/adapter\/express\/index\.js$/);
    writeFileSync(
      join(consumer, 'express.ts'),
      [
        `import { requireAuth, type ExpressUser } from 'svc-auth/express';`,
        `const guard = requireAuth({ cookieSecret: 'c'.repeat(32) });`,
        `type Req = Parameters<typeof guard>[0];`,
        `export const roles = (req: Req): string[] => req.user?.roles ?? [];`,
        `export const email = (user: ExpressUser): string | undefined => user.email;`,
        `// @ts-expect-error -- req.user is typed, not any`,
        `export const wrong = (req: Req): number => req.user?.email;`,
      ].join('\n'),
    );
    writeFileSync(
      join(consumer, 'tsconfig.express.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          lib: ['ES2022', 'DOM'],
          types: [],
        },
        files: ['express.ts'],
      }),
    );
    await run([TSC, '-p', join(consumer, 'tsconfig.express.json')], consumer);
  }, 30_000);
});
