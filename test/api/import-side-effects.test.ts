/**
 * `svc-auth/api` and the Workers entry do no I/O at import time:
 * importing them with the default `DATABASE_URL` (`file:./.data/svc.db`)
 * creates no file and makes no network call; only `createAuthApi()` does.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

describe('import side effects', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-import-'));
  const cwd = process.cwd();
  afterAll(() => {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  });

  it('importing the API and the Worker entry touches neither the file system nor the network', async () => {
    const realFetch = globalThis.fetch;
    const fetched: string[] = [];
    globalThis.fetch = (async (input: RequestInfo | URL) => {
      fetched.push(String(input));
      throw new Error('no network at import time');
    }) as typeof fetch;
    process.chdir(dir);
    try {
      const api = await import('../../src/index.js');
      const worker = await import('../../src/worker.js');
      expect(typeof api.createAuthApi).toBe('function');
      expect(typeof worker.default.fetch).toBe('function');
      await new Promise((r) => setTimeout(r, 50));
      expect(readdirSync(dir)).toEqual([]);
      expect(fetched).toEqual([]);

      // Control: the factory is what opens the default database file. It has no file-system
      // access of its own (Workers), so the directory must exist; the entry files create it.
      const env = {
        ISSUER: 'http://127.0.0.1:8787',
        API_SERVICE_TOKEN: 'side-effects-test-service-token-0123456789',
        APP_NAME: 'x',
        DEFAULT_ROLES: 'user',
        AVAILABLE_ROLES: 'user',
        ACCESS_TOKEN_TTL: '15m',
        REFRESH_TOKEN_TTL: '1d',
        RATE_LIMIT: '100',
        DELAY_AFTER: '0',
        RPID: 'localhost',
        ORIGINS: 'http://localhost:3000',
      };
      const quiet = { log() {} };
      await expect(api.createAuthApi({ env, logger: quiet })).rejects.toThrow(
        /^DATABASE_URL: cannot open the database .*; its directory must exist$/,
      );
      mkdirSync(join(dir, '.data'));
      const app = await api.createAuthApi({ env, logger: quiet });
      expect(readdirSync(join(dir, '.data'))).toContain('svc.db');
      await app.close();
    } finally {
      globalThis.fetch = realFetch;
      process.chdir(cwd);
    }
  }, 60_000);
});
