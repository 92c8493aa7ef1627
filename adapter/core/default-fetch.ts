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
import { FETCH_DEADLINE_MS, withDeadline, type DeadlineFetch, type DeadlineInit } from './fetch-deadline.js';
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

/** Whether the resolved transport takes `init[FETCH_DEADLINE_MS]` itself (the Node one does). */
let sharedTakesDeadline = false;

/**
 * The default transport, resolved on its first call (so an entry loaded after the adapter was built still counts).
 * It declares `FETCH_DEADLINE_MS` because the adapter decides how to pass the deadline before this resolves: the
 * number goes through to a transport that takes it (the Node one: no `AbortSignal.timeout` per call, the point of
 * fetch-deadline.ts) and becomes a timeout signal for any other (the global `fetch`).
 */
export const defaultFetch: DeadlineFetch = Object.assign(
  (input: string, init?: RequestInit): Promise<Response> => {
    if (shared === undefined) {
      shared = factory ? factory() : globalFetch;
      sharedTakesDeadline = (shared as Partial<DeadlineFetch>)[FETCH_DEADLINE_MS] === true;
    }
    const deadlineMs = (init as DeadlineInit | undefined)?.[FETCH_DEADLINE_MS];
    if (sharedTakesDeadline || deadlineMs === undefined) return shared(input, init);
    const { [FETCH_DEADLINE_MS]: _number, ...rest } = init as DeadlineInit;
    return shared(input, withDeadline(shared, rest, deadlineMs));
  },
  { [FETCH_DEADLINE_MS]: true as const },
);
