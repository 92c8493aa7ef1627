/**
 * The `fetch` the adapter and `requireAuth`/`getUser` use when the app passes
 * none. Everywhere it is `globalThis.fetch`; the Node entries of the package
 * (`svc-auth/hono` and `svc-auth/core` under the `node` export condition, and
 * `svc-auth/express`) install the `node:http` transport here, because Node's
 * global `fetch` costs several times more CPU per call on the app → API hop
 * (docs/performance.md) and users measure before they read the options.
 *
 * The factory is called on the first upstream call, once per process: nothing
 * is created at import time and no socket is opened before a call.
 */
import type { FetchLike } from './options.js';

let factory: (() => FetchLike) | undefined;
let shared: FetchLike | undefined;

const globalFetch: FetchLike = (input, init) => globalThis.fetch(input, init);

/**
 * Called by the Node entries at load time (no I/O: it only records the
 * factory). The first installation wins, so two entries loaded in one process
 * share one transport.
 */
export function installDefaultFetch(create: () => FetchLike): void {
  factory ??= create;
}

/** The default transport, resolved on its first call (so an entry loaded after the adapter was built still counts). */
export const defaultFetch: FetchLike = (input, init) => {
  shared ??= factory ? factory() : globalFetch;
  return shared(input, init);
};
