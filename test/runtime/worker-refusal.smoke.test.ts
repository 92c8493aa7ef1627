/**
 * A Worker is reachable from anywhere the moment it runs: started
 * with `wrangler.toml` as shipped (production by default) and nothing set, it
 * refuses to serve, and each refused request logs one line that leads with the
 * missing `API_SERVICE_TOKEN`. The shipped `--env dev` section is the explicit
 * development opt-in: it serves, with a random token of its own.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, http, removeDir, startWranglerDev, tempDir, waitForHttp, type Spawned } from './processes.js';

async function wranglerDev(dir: string, extra: string[]): Promise<{ worker: Spawned; base: string }> {
  const { proc, base } = await startWranglerDev({
    configs: [join(ROOT, 'wrangler.toml')],
    dir,
    logLevel: 'warn',
    extra,
  });
  return { worker: proc, base };
}

/** Waits until the worker answers at all (a refusal is a 500). */
async function firstAnswer(url: string, worker: Spawned): Promise<number> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      return (await fetch(url, { signal: AbortSignal.timeout(5000) })).status;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`no answer from ${url}:\n${worker.output()}`);
}

describe('a Worker started with the shipped wrangler.toml', () => {
  const dirs: string[] = [];
  const workers: Spawned[] = [];
  afterAll(async () => {
    for (const w of workers) await w.stop();
    for (const d of dirs) removeDir(d);
  });

  it('refuses to serve without API_SERVICE_TOKEN, with one line saying why', async () => {
    const dir = tempDir('worker-refusal');
    dirs.push(dir);
    const { worker, base } = await wranglerDev(dir, []);
    workers.push(worker);
    expect(await firstAnswer(`${base}/health/status`, worker)).toBe(500);
    const res = await http(`${base}/.well-known/jwks.json`);
    expect(res.status).toBe(500);
    expect(res.body.error).toBe('internal_error');
    // Each refused request logs exactly one line, and it names the service token first.
    await new Promise((r) => setTimeout(r, 300));
    const lines = worker
      .output()
      .split('\n')
      .filter((l) => l.includes('svc-auth:'));
    expect(lines.length, worker.output()).toBeGreaterThanOrEqual(2);
    for (const line of lines)
      expect(line).toMatch(
        /svc-auth: refusing to serve: API_SERVICE_TOKEN: is required in production .*\(and \d+ more: .*ISSUER/,
      );
  }, 90_000);

  it('serves in the shipped development environment (--env dev), with a generated token printed once', async () => {
    const dir = tempDir('worker-dev-env');
    dirs.push(dir);
    const { worker, base } = await wranglerDev(dir, ['--env', 'dev']);
    workers.push(worker);
    await waitForHttp(`${base}/health/status`, worker, 60_000);
    const jwks = await http(`${base}/.well-known/jwks.json`);
    expect(jwks.status, worker.output()).toBe(200);
    await http(`${base}/oauth/providers`);
    const printed = worker
      .output()
      .split('\n')
      .filter((l) => l.includes('generated a development API_SERVICE_TOKEN'));
    expect(printed, worker.output()).toHaveLength(1);
  }, 90_000);
});
