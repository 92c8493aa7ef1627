/**
 * Embedded libSQL (the `file:` client, @libsql/client 0.15–0.18 with libsql
 * 0.5.29) does not reset a statement that failed with SQLITE_BUSY: the
 * statement stays "in progress" until garbage collection, and every later
 * `batch()` on that connection fails at COMMIT with "cannot commit transaction -
 * SQL statements in progress". One busy moment (two processes on one file, a
 * long writer) would wedge the process's writes — refresh rotation included.
 * Found while testing the 503 answer to a held write lock (issue #16); kept
 * until libsql resets statements on error.
 *
 * The cure: after a busy failure, reopen the connection (`reconnect()`) and
 * re-apply the per-connection settings before the next statement runs. The
 * failed statement or batch did not commit, so nothing is lost; the caller
 * still sees the original error (the API answers 503 with Retry-After).
 */
import type { Client } from '@libsql/client';

const WEDGED = /SQLITE_BUSY|SQLITE_LOCKED|statements in progress|database is locked/;

function isBusy(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return (typeof e?.code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(e.code)) || (typeof e?.message === 'string' && WEDGED.test(e.message));
}

/** Returns `client` with `execute`/`batch` that reopen the connection after a busy failure. */
export function healOnBusy(client: Client, applySettings: (c: Client) => Promise<void>): Client {
  let healing: Promise<void> | null = null;
  const heal = () =>
    (healing ??= (async () => {
      try {
        await client.reconnect();
      } catch {
        /* closing the wedged connection may fail; reconnect() opens the new one regardless */
      }
      await applySettings(client);
    })().finally(() => (healing = null)));
  const guard =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (healing) await healing;
      try {
        return await fn(...args);
      } catch (err) {
        if (isBusy(err)) await heal().catch(() => {});
        throw err;
      }
    };
  const execute = guard(client.execute.bind(client) as (...a: unknown[]) => ReturnType<Client['execute']>);
  const batch = guard(client.batch.bind(client));
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === 'execute') return execute;
      if (prop === 'batch') return batch;
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
