/**
 * Embedded libSQL (libsql 0.5.29, the native binding under both
 * `@libsql/client`'s file driver and our embedded client) does not reset a
 * statement that failed with SQLITE_BUSY: the statement stays "in progress"
 * until garbage collection, and every later `batch()` on that connection fails
 * at COMMIT with "cannot commit transaction - SQL statements in progress". One
 * busy moment (two processes on one file, a long writer) would wedge the
 * process's writes — refresh rotation included. Found while testing the 503
 * answer to a held write lock; kept until libsql resets statements
 * on error.
 *
 * The cure: after a busy failure, the embedded client (`embedded-client.ts`,
 * option `reopenOnBusy`) drops the connection and its cached statements, and
 * opens a new one with the same per-connection settings before the next
 * statement runs. The failed statement or batch did not commit, so nothing is
 * lost; the caller still sees the original error (the API answers 503 with
 * Retry-After).
 */
const WEDGED = /SQLITE_BUSY|SQLITE_LOCKED|statements in progress|database is locked/;

/** True for a failure after which an embedded connection may be wedged. */
export function isBusyFailure(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return (
    (typeof e?.code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(e.code)) ||
    (typeof e?.message === 'string' && WEDGED.test(e.message))
  );
}
