/**
 * The default upstream `fetch` (adapter/core/default-fetch.ts): the Node
 * entries install a factory at load time, and nothing is created before the
 * first upstream call; one transport per process, the first installation wins.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FETCH_DEADLINE_MS, type DeadlineInit } from '../../../adapter/core/fetch-deadline.js';
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

describe('the deadline through the default fetch (adapter/core/fetch-deadline.ts)', () => {
  const realTimeout = AbortSignal.timeout;
  afterEach(() => {
    AbortSignal.timeout = realTimeout;
  });
  const base = { method: 'GET', path: '/users/me', serviceToken: 'Bearer svc', client: {} };

  it('hands an installed deadline transport (the Node one) the 10 s deadline as a number: no timeout signal per call', async () => {
    let built = 0;
    AbortSignal.timeout = (ms: number) => {
      built++;
      return realTimeout(ms);
    };
    const seen: DeadlineInit[] = [];
    const transport = Object.assign(
      vi.fn(async (_url: string, init?: RequestInit) => {
        seen.push(init as DeadlineInit);
        return new Response('{}');
      }),
      { [FETCH_DEADLINE_MS]: true as const },
    );
    mod.installDefaultFetch(() => transport);
    const { callUpstream, UPSTREAM_TIMEOUT_MS } = await import('../../../adapter/core/upstream.js');
    for (let i = 0; i < 3; i++)
      expect(await callUpstream(mod.defaultFetch, 'http://api', base)).toMatchObject({ ok: true, status: 200 });
    expect(seen.map((init) => init[FETCH_DEADLINE_MS])).toEqual([
      UPSTREAM_TIMEOUT_MS,
      UPSTREAM_TIMEOUT_MS,
      UPSTREAM_TIMEOUT_MS,
    ]);
    expect(seen.every((init) => init.signal === undefined)).toBe(true);
    expect(built).toBe(0);
  });

  it('turns the deadline into a timeout signal for a transport that does not take it (the global fetch)', async () => {
    const requested: number[] = [];
    AbortSignal.timeout = (ms: number) => {
      requested.push(ms);
      return realTimeout(ms);
    };
    const global = vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('{}'));
    try {
      const { callUpstream, UPSTREAM_TIMEOUT_MS } = await import('../../../adapter/core/upstream.js');
      expect(await callUpstream(mod.defaultFetch, 'http://api', base)).toMatchObject({ ok: true, status: 200 });
      const init = global.mock.calls[0]![1] as DeadlineInit;
      expect(requested).toEqual([UPSTREAM_TIMEOUT_MS]);
      expect(init.signal).toBeInstanceOf(AbortSignal);
      expect(FETCH_DEADLINE_MS in init).toBe(false);
      expect(init.method).toBe('GET');
    } finally {
      global.mockRestore();
    }
  });

  it('keeps a signal of its own beside the deadline', async () => {
    const global = vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('{}'));
    try {
      const own = new AbortController();
      await mod.defaultFetch('http://api/x', { signal: own.signal, [FETCH_DEADLINE_MS]: 10_000 } as DeadlineInit);
      const signal = (global.mock.calls[0]![1] as RequestInit).signal!;
      expect(signal.aborted).toBe(false);
      own.abort();
      expect(signal.aborted).toBe(true);
    } finally {
      global.mockRestore();
    }
  });
});
