/**
 * The default upstream `fetch` (adapter/core/default-fetch.ts): the Node
 * entries install a factory at load time, and nothing is created before the
 * first upstream call; one transport per process, the first installation wins.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { FetchLike } from '../../../adapter/core/options.js';

type Module = typeof import('../../../adapter/core/default-fetch.js');
let mod: Module;

beforeEach(async () => {
  vi.resetModules(); // a fresh module: a fresh process as far as the default is concerned
  mod = await import('../../../adapter/core/default-fetch.js');
});

const answering = (label: string): FetchLike => vi.fn(async () => new Response(label));

describe('default upstream fetch', () => {
  it('creates the installed transport on the first call only, once', async () => {
    const transport = answering('node');
    const factory = vi.fn(() => transport);
    mod.installDefaultFetch(factory);
    expect(factory).not.toHaveBeenCalled();
    expect(await (await mod.defaultFetch('http://api/a')).text()).toBe('node');
    await mod.defaultFetch('http://api/b', { method: 'POST' });
    expect(factory).toHaveBeenCalledTimes(1);
    expect(transport).toHaveBeenCalledWith('http://api/b', { method: 'POST' });
  });

  it('keeps the first installation: a second entry loaded in the same process shares the transport', async () => {
    const second = vi.fn(() => answering('second'));
    mod.installDefaultFetch(() => answering('first'));
    mod.installDefaultFetch(second);
    expect(await (await mod.defaultFetch('http://api/')).text()).toBe('first');
    expect(second).not.toHaveBeenCalled();
  });

  it('is the global fetch when nothing was installed (Workers, Bun, Deno, the neutral entries)', async () => {
    const global = vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('global'));
    try {
      expect(await (await mod.defaultFetch('http://api/x')).text()).toBe('global');
      expect(global).toHaveBeenCalledWith('http://api/x', undefined);
    } finally {
      global.mockRestore();
    }
  });

  it('the adapter uses it only without an explicit fetch option', async () => {
    const { resolveOptions } = await import('../../../adapter/core/options.js');
    const base = {
      authServerUrl: 'http://api',
      audience: 'http://api',
      issuer: 'http://app',
      cookieSecret: 'c'.repeat(32),
      serviceSecret: 's'.repeat(32),
    };
    const own = answering('own');
    expect(resolveOptions({ ...base, fetch: own }, 'svcAdapter').fetch).toBe(own);
    expect(resolveOptions(base, 'svcAdapter').fetch).toBe(mod.defaultFetch);
  });
});
