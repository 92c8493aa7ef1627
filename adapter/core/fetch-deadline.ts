/**
 * How the adapter gives its upstream calls a deadline. The Web way is
 * `signal: AbortSignal.timeout(ms)`, and every `fetch` gets that, except one
 * that declares `FETCH_DEADLINE_MS`: it receives the deadline as a number in
 * `init[FETCH_DEADLINE_MS]` and enforces it itself. On Node,
 * `AbortSignal.timeout` costs ~6–16 µs per call (a weakly held signal with its
 * own timer), a visible share of the adapter's whole cost on the who-am-I hop;
 * the Node transport (`svc-auth/node`) declares the symbol and uses one plain
 * timer instead. Elsewhere (Workers, Bun, Deno) the signal is cheap and stays.
 *
 * `Symbol.for`, so a transport from another copy of the package still matches.
 */
import type { FetchLike } from './options.js';

export const FETCH_DEADLINE_MS: unique symbol = Symbol.for('svc-auth.fetch-deadline-ms') as never;

/** A `FetchLike` that enforces `init[FETCH_DEADLINE_MS]` itself. */
export type DeadlineFetch = FetchLike & { readonly [FETCH_DEADLINE_MS]: true };

/** The `RequestInit` extension such a fetch reads. */
export type DeadlineInit = RequestInit & { [FETCH_DEADLINE_MS]?: number };

/** `init` with the deadline in the form `fetchFn` takes: a number for a deadline fetch, else a timeout signal. */
export function withDeadline(fetchFn: FetchLike, init: RequestInit, deadlineMs: number): DeadlineInit {
  if ((fetchFn as Partial<DeadlineFetch>)[FETCH_DEADLINE_MS] === true)
    return { ...init, [FETCH_DEADLINE_MS]: deadlineMs };
  return { ...init, signal: AbortSignal.timeout(deadlineMs) };
}
