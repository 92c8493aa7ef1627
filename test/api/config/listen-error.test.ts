/**
 * A port the API cannot listen on is one configuration line that says what to
 * do: a busy port suggests `PORT=`, any other refusal suggests `HOST`/`PORT`.
 * The Node, Bun and Deno entries share `listenError` (each runtime names the
 * failure differently). The Node one is also checked on a real socket in
 * test/runtime/node.smoke.test.ts.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.js';
import { listenError } from '../../../src/config/listen-error.js';
import { startNodeApi } from '../../../src/node.js';

const BUSY =
  'PORT: cannot listen on 127.0.0.1:8787 (EADDRINUSE): the port is in use; stop what uses it, or start with PORT=<another port> (HOST=<address> to change the address)';

describe('listenError', () => {
  it('names the port and suggests PORT= for a busy port, however the runtime says it', () => {
    const node = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:8787'), {
      code: 'EADDRINUSE',
    });
    const bun = Object.assign(new Error('Failed to start server. Is port 8787 in use?'), { code: 'EADDRINUSE' });
    const deno = Object.assign(new Error('Address already in use (os error 98)'), { name: 'AddrInUse' });
    for (const err of [node, bun, deno]) {
      const e = listenError('127.0.0.1', 8787, err);
      expect(e).toBeInstanceOf(ConfigError);
      expect(e.key).toBe('PORT');
      expect(e.message).toBe(BUSY);
    }
  });

  it('suggests HOST and PORT for any other refusal, on one line', () => {
    const e = listenError(
      '203.0.113.9',
      80,
      Object.assign(new Error('listen EADDRNOTAVAIL'), { code: 'EADDRNOTAVAIL' }),
    );
    expect(e.message).toBe(
      'PORT: cannot listen on 203.0.113.9:80 (EADDRNOTAVAIL); set HOST=<address> and PORT=<port> to ones this machine can listen on',
    );
    expect(listenError('::1', 1, new Error('weird\nsecond line')).message).not.toContain('\n');
  });
});

describe('startNodeApi on a busy port', () => {
  it('refuses with the PORT= suggestion', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const err = await startNodeApi({
        NODE_ENV: 'test',
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: 'file::memory:',
        ISSUER: 'http://127.0.0.1',
      }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message).toBe(BUSY.replaceAll('8787', String(port)));
    } finally {
      blocker.close();
    }
  });
});
