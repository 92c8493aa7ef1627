/**
 * Database failures that say "try again", not "this is a bug": the write lock
 * is held (SQLITE_BUSY / SQLITE_LOCKED — on sqld, a client killed mid-write
 * keeps it until its stream times out), or the database server cannot be
 * reached. A statement or batch that failed this way did not commit, so the
 * client may retry it as is: the API answers 503 `service_unavailable` with
 * `Retry-After` instead of a 500 (found by the kill -9 soak).
 */
const BUSY_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_RECOVERY']);
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'HRANA_WEBSOCKET_ERROR',
]);
// D1 and the libSQL HTTP client report some of these only in the message.
const TRANSIENT_MESSAGE =
  /database is locked|SQLITE_BUSY|SQLITE_LOCKED|Network connection lost|fetch failed|socket hang up|other side closed|aborted due to timeout|operation was aborted/i;

/** True when `err` (or an error in its `cause` chain, e.g. inside drizzle's query error) is transient. */
export function isTransientDbError(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const name = (e as { name?: unknown }).name;
    if (name === 'TimeoutError' || name === 'AbortError') return true; // DB_TIMEOUT_MS gave up on the call
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (BUSY_CODES.has(code) || UNREACHABLE_CODES.has(code))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && TRANSIENT_MESSAGE.test(message.split('\nparams:')[0]!)) return true;
  }
  return false;
}

/** Seconds a client should wait before retrying a transient failure. */
export const TRANSIENT_RETRY_AFTER_SECONDS = 1;
