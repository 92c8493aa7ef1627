/**
 * Setup file of the unit suite's `shared` project (files share a worker): each
 * file ends with the web globals its worker started with.
 *
 * `serve()` / `getRequestListener()` of @hono/node-server replace
 * `globalThis.Request` and `Response` with their own lighter classes
 * (`overrideGlobalObjects`, on by default) and never put them back. A file that
 * starts such a server would hand the next file of its worker a different
 * `Response`: test/adapter/node/fetch.test.ts then saw its `Response` (a
 * subclass of the real one, loaded earlier) fail `toBeInstanceOf(Response)`.
 * The first evaluation in a worker records the globals; every file restores them
 * when it ends (setup files run again before each file).
 */
import { afterAll } from 'vitest';

const NAMES = ['Request', 'Response', 'Headers', 'fetch', 'FormData', 'Blob', 'File', 'navigator', 'crypto'] as const;
const KEY = Symbol.for('svc.test.pristineWebGlobals');
const store = globalThis as unknown as Record<symbol, Map<string, PropertyDescriptor | undefined>>;
store[KEY] ??= new Map(NAMES.map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)]));
const pristine = store[KEY];

afterAll(() => {
  for (const [name, descriptor] of pristine) {
    const now = Object.getOwnPropertyDescriptor(globalThis, name);
    if (descriptor === undefined) {
      if (now !== undefined) delete (globalThis as Record<string, unknown>)[name];
    } else if (now?.value !== descriptor.value || now?.get !== descriptor.get) {
      Object.defineProperty(globalThis, name, descriptor);
    }
  }
});
