/**
 * The default upstream transport of the built package, as each runtime
 * resolves it. Under Node, `svc-auth/hono` and `svc-auth/core` resolve (the
 * `node` export condition) to entries that make `nodeUpstreamFetch()` the
 * default `fetch`, so a quickstart-shaped app gets the fast transport without
 * a `fetch` option; Bun, Deno and Workers bundlers resolve the neutral entries
 * (their own `fetch`), and a Workers bundle carries no `node:` module.
 *
 * Observable from a stub API: `nodeUpstreamFetch` sends no `user-agent`,
 * Node's global `fetch` (undici) sends `user-agent: node`.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtPackage } from '../helpers/built-package.js';
import { BIN, ROOT, removeDir, tempDir } from './processes.js';

const exec = async (file: string, args: string[], cwd: string) =>
  (await promisify(execFile)(file, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })).stdout;
const lastJson = (out: string) => JSON.parse(out.trim().split('\n').pop()!);

describe('default upstream transport (built dist)', () => {
  let dir: string | undefined;
  let consumer = '';
  let server: Server;
  let base = '';
  /** The `user-agent` of each request the stub API received (null: none). */
  const agents: (string | null)[] = [];

  beforeAll(async () => {
    dir = tempDir('transport');
    // package.json + dist/ from tsconfig.build.json (--noCheck), built once per run (test/helpers/built-package.ts).
    const installed = await builtPackage(() => dir!);
    consumer = join(dir, 'consumer');
    mkdirSync(join(consumer, 'node_modules'), { recursive: true });
    symlinkSync(installed, join(consumer, 'node_modules', 'svc-auth'), 'dir');
    symlinkSync(join(ROOT, 'node_modules', 'hono'), join(consumer, 'node_modules', 'hono'), 'dir');
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));

    server = createServer((req, res) => {
      agents.push(req.headers['user-agent'] ?? null);
      res.setHeader('content-type', 'application/json');
      res.end(req.url === '/.well-known/jwks.json' ? '{"keys":[]}' : '{"providers":[]}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }, 300_000);

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    removeDir(dir);
  });

  /** A quickstart-shaped app: the adapter (one upstream call) and requireAuth with a bearer (one JWKS call). */
  const appScript = (entry: string, fetchOption: string) => `
    const { Hono } = await import('hono');
    const { svcAdapter, requireAuth } = await import(${JSON.stringify(entry)});
    const b64 = (o) => btoa(JSON.stringify(o)).replace(/=+$/, '').replace(/\\+/g, '-').replace(/\\//g, '_');
    const opts = { authServerUrl: ${JSON.stringify(base)}, audience: ${JSON.stringify(base)},
      issuer: 'http://localhost:3000', cookieSecret: 'c'.repeat(32), serviceSecret: 's'.repeat(32) ${fetchOption} };
    const app = new Hono();
    app.route('/auth', svcAdapter(opts));
    app.get('/app', requireAuth(opts), (c) => c.text('in'));
    const providers = await app.request('/auth/oauth/providers');
    const bearer = [b64({ alg: 'RS256', kid: 'k', typ: 'JWT' }), b64({ sub: 'u', exp: 9e9 }), 'AAAA'].join('.');
    const guarded = await app.request('/app', { headers: { authorization: 'Bearer ' + bearer } });
    console.log(JSON.stringify({ statuses: [providers.status, guarded.status], doneAtMs: Date.now(),
      resolved: import.meta.resolve(${JSON.stringify(entry)}) }));
  `;

  /** Runs the app under Node; resolves with its last line and how long the process lived after its last call. */
  const runNode = (script: string) =>
    new Promise<{ result: Record<string, unknown>; lingerMs: number }>((resolve, reject) => {
      execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer }, (err, stdout) => {
        if (err) return reject(err);
        const result = lastJson(stdout);
        resolve({ result, lingerMs: Date.now() - (result.doneAtMs as number) });
      });
    });

  it.each(['svc-auth/hono', 'svc-auth/core'])('under Node, %s resolves to its Node entry', async (entry) => {
    const out = await exec(
      process.execPath,
      ['--input-type=module', '-e', `console.log(import.meta.resolve('${entry}'))`],
      consumer,
    );
    expect(out.trim()).toMatch(new RegExp(`/dist/adapter/${entry.split('/')[1]}/node\\.js$`));
  });

  it('under Node without a fetch option, the adapter and requireAuth call the API over node:http, and the process exits when idle', async () => {
    agents.length = 0;
    const { result, lingerMs } = await runNode(appScript('svc-auth/hono', ''));
    expect(result.statuses).toEqual([200, 401]);
    expect(result.resolved).toMatch(/\/dist\/adapter\/hono\/node\.js$/);
    // Two calls (the adapter's, the JWKS), neither with undici's `user-agent: node`.
    expect(agents).toEqual([null, null]);
    // The idle keep-alive socket does not hold the process open (its idle timeout is 4 s).
    expect(lingerMs).toBeLessThan(2500);
  }, 30_000);

  it('an explicit fetch option wins over the Node default', async () => {
    agents.length = 0;
    const { result } = await runNode(appScript('svc-auth/hono', ', fetch: (u, i) => globalThis.fetch(u, i)'));
    expect(result.statuses).toEqual([200, 401]);
    expect(agents).toEqual(['node', 'node']);
  }, 30_000);

  it('the neutral entry (what Bun, Deno and Workers resolve) keeps the global fetch when loaded under Node', async () => {
    agents.length = 0;
    const neutral = join(consumer, 'node_modules/svc-auth/dist/adapter/hono/index.js');
    const { result } = await runNode(appScript(`file://${neutral}`, ''));
    expect(result.statuses).toEqual([200, 401]);
    expect(agents).toEqual(['node', 'node']);
  }, 30_000);

  it.skipIf(!existsSync(BIN.bun))(
    'Bun resolves the neutral entries',
    async () => {
      const out = await exec(
        BIN.bun,
        ['-e', `console.log(import.meta.resolve('svc-auth/hono'), import.meta.resolve('svc-auth/core'))`],
        consumer,
      );
      expect(out.trim().split(' ')).toEqual([
        expect.stringMatching(/\/dist\/adapter\/hono\/index\.js$/),
        expect.stringMatching(/\/dist\/adapter\/core\/index\.js$/),
      ]);
    },
    30_000,
  );

  it('Deno resolves the neutral entries', async () => {
    writeFileSync(
      join(consumer, 'deno-probe.mjs'),
      `console.log(import.meta.resolve('svc-auth/hono'), import.meta.resolve('svc-auth/core'));\n`,
    );
    const out = await exec(BIN.deno, ['run', '-A', 'deno-probe.mjs'], consumer);
    expect(out.trim().split(' ')).toEqual([
      expect.stringMatching(/\/dist\/adapter\/hono\/index\.js$/),
      expect.stringMatching(/\/dist\/adapter\/core\/index\.js$/),
    ]);
  }, 60_000);

  it("a Workers bundle (wrangler's build) of an app on svc-auth/hono carries no node: module", async () => {
    writeFileSync(
      join(consumer, 'worker.mjs'),
      `import { Hono } from 'hono';\nimport { svcAdapter } from 'svc-auth/hono';\nconst app = new Hono();\n` +
        `app.route('/auth', svcAdapter({ authServerUrl: 'http://api', audience: 'http://api', issuer: 'http://app', cookieSecret: 'c'.repeat(32), serviceSecret: 's'.repeat(32) }));\nexport default app;\n`,
    );
    writeFileSync(
      join(consumer, 'wrangler.toml'),
      'name = "probe"\nmain = "worker.mjs"\ncompatibility_date = "2025-09-01"\n',
    );
    await promisify(execFile)(process.execPath, [BIN.wrangler, 'deploy', '--dry-run', '--outdir', 'out'], {
      cwd: consumer,
      env: {
        ...process.env,
        WRANGLER_SEND_METRICS: 'false',
        CI: '1',
        NO_COLOR: '1',
        WRANGLER_LOG_PATH: join(dir!, 'logs'),
      },
    });
    const code = readFileSync(join(consumer, 'out', 'worker.js'), 'utf8');
    expect(code).toContain('svc-hono-adapter');
    expect(code).not.toMatch(/["']node:/);
    expect(code).not.toContain('nodeUpstreamFetch');
  }, 120_000);

  it.each([
    "export { svcAdapter } from 'svc-auth/hono';",
    "export { requireAuth } from 'svc-auth/hono';",
    "export { createAuthGuard } from 'svc-auth/core';",
    "export { requireAuth } from 'svc-auth/express';",
  ])(
    'a bundler targeting Node (esbuild, platform node) keeps the Node default: %s',
    async (source) => {
      // package.json `sideEffects` names the Node entries: without it, esbuild skips their import of the transport.
      writeFileSync(join(consumer, 'node-app.mjs'), `${source}\n`);
      const result = await build({
        entryPoints: [join(consumer, 'node-app.mjs')],
        bundle: true,
        platform: 'node',
        format: 'esm',
        write: false,
        external: ['hono', 'hono/*', 'express'],
        logLevel: 'silent',
      });
      const code = result.outputFiles[0]!.text;
      expect(code).toContain('installDefaultFetch(() => nodeUpstreamFetch())');
      expect(code).toMatch(/from\s*["']node:http["']/);
    },
    60_000,
  );
});
