import type { Context } from 'hono';

/** Runs work after the response: `waitUntil` on Workers, fire-and-forget elsewhere. */
export function runInBackground(c: Context, work: Promise<unknown>, onError: (err: unknown) => void): void {
  const guarded = work.catch(onError);
  try {
    c.executionCtx.waitUntil(guarded);
  } catch {
    // No execution context outside Workers: the promise simply runs on.
  }
}
