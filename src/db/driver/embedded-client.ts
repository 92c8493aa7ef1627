/**
 * Our embedded libSQL client for `file:` and `:memory:` databases
 * on Node, Bun and Deno: the libSQL `Client` interface that drizzle's libSQL
 * session and `src/db/*` call, directly over the native `libsql` package (the
 * binding `@libsql/client`'s own file driver uses).
 *
 * Why: `@libsql/client`'s file driver prepares every statement again on each
 * `execute`, reads its column list twice and builds each row with one
 * `Object.defineProperty` per value and per column — over half of the CPU of
 * `GET /users/me`. Here a statement is prepared once per SQL string (a
 * bounded cache; the oldest entry is dropped first), its mode (reader or not)
 * and column list are read once, and rows come from the statement's raw
 * (array) mode into one small class per statement. Measured against
 * `@libsql/client` 0.18 with drizzle's prepared queries (`npm run
 * bench:driver`, docs/performance.md): 12–20× less CPU per read-path query,
 * ~4× less per `GET /users/me`; it stays while that holds at 2× or more.
 *
 * What stays as `@libsql/client` (intMode `number`) does it, so the rest of
 * the code cannot tell the difference:
 * - rows: array-like (`length` and indices, not enumerable) with an
 *   enumerable property per column name (the first column of a name wins);
 *   integers as numbers (a RangeError beyond ±2^53 − 1, read as BigInt first),
 *   blobs as `ArrayBuffer`, text as strings, NULL as null;
 * - arguments: numbers must be finite, booleans become 0/1, `ArrayBuffer`
 *   becomes bytes, `Date` its epoch milliseconds, `undefined` is refused;
 *   named arguments may carry their `:`/`@`/`$` prefix;
 * - a statement that returns rows has `rowsAffected` 0 and no
 *   `lastInsertRowid`; one that does not has SQLite's changes and the rowid
 *   as a BigInt;
 * - errors: SQLite's become `LibsqlError` with the same `code` (e.g.
 *   `SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_BUSY`), `rawCode` and message;
 * - `batch(stmts, mode)`: BEGIN (IMMEDIATE for `write`) … COMMIT, ROLLBACK
 *   when a statement fails; `transaction()` hands the current connection to
 *   the transaction and opens a new one for the client.
 *
 * Concurrency: one connection, and the native calls are synchronous, so a
 * `batch` runs from BEGIN to COMMIT within one call, with no await between its
 * statements: no other `execute` or `batch` of this process can run inside
 * it. Another process's writer is waited for by `busy_timeout` (set by
 * `openDatabase`); `connectionSetup` runs again on every new connection.
 *
 * A cached statement that failed is dropped from the cache (libsql may leave
 * it "in progress", see busy-recovery.ts); with `reopenOnBusy`, a busy failure
 * also drops the connection, and the next call opens a new one.
 *
 * Two savings on reads, both exact. A SELECT ending in `LIMIT 1` (or
 * `LIMIT ?` bound to 1) is read with `get()`: one native call (query, first
 * row, reset), ~2× cheaper than reading all rows. A SELECT whose last run
 * returned no row — lookups that usually find nothing: no passkey, no
 * organization — first asks for one row the same way; only if there is one
 * does it run again for all its rows, and the result is that second run's,
 * one consistent read.
 *
 * Layout: `embedded-connection.ts` holds one connection with its statement
 * cache (all of the above about statements and rows), `embedded-transaction.ts`
 * the interactive transaction, `embedded-rows.ts` the values and rows; this
 * file the client, its options and `embeddedPath`.
 *
 * Node-only (a native module): `openDatabase` imports this file dynamically
 * for embedded URLs only, so the Workers bundle never reaches it (nor the
 * `embedded-*.ts` modules, which only this file and each other import).
 */
import { LibsqlError } from '@libsql/client';
import { isBusyFailure } from './busy-recovery.js';
import type { Client, InArgs, InStatement, ResultSet, Transaction, TransactionMode } from '@libsql/client';
import { Connection, mapError } from './embedded-connection.js';
import { EmbeddedTransaction } from './embedded-transaction.js';

export interface EmbeddedClientOptions {
  /** Prepared statements kept per connection (default 500). */
  statementCacheSize?: number;
  /** SQL run on every new connection (the first, after `reconnect()`, after `transaction()`), e.g. PRAGMAs. */
  connectionSetup?: string[];
  /**
   * Open a new connection after a busy failure (busy-recovery.ts). Files only:
   * a new `:memory:` connection is a new, empty database.
   */
  reopenOnBusy?: boolean;
}

export const DEFAULT_STATEMENT_CACHE_SIZE = 500;

function beginFor(mode: TransactionMode): string {
  if (mode === 'write') return 'BEGIN IMMEDIATE';
  if (mode === 'read') return 'BEGIN TRANSACTION READONLY';
  if (mode === 'deferred') return 'BEGIN DEFERRED';
  throw new RangeError('Unknown transaction mode, supported values are "write", "read" and "deferred"');
}

// --- the client -----------------------------------------------------------------

/** Turns a `file:` URL (or `:memory:`) into the path the native driver opens, as `@libsql/client` reads it. */
export function embeddedPath(url: string): string {
  if (url === ':memory:' || url === 'file::memory:') return ':memory:';
  const m = /^file:(?:\/\/([^/?#]*))?([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(url);
  if (!m) throw new LibsqlError(`Not an embedded database URL: ${JSON.stringify(url)}`, 'URL_INVALID');
  const [, authority, path, query, fragment] = m;
  if (authority !== undefined && authority !== '' && authority.toLowerCase() !== 'localhost') {
    throw new LibsqlError(
      `Invalid host in file URL: ${JSON.stringify(authority)}. A "file:" URL with an absolute path should start with one slash ("file:/absolute/path.db") or with three slashes ("file:///absolute/path.db").`,
      'URL_INVALID',
    );
  }
  if (query !== undefined && query !== '?') {
    const key = query.slice(1).split('&')[0]!.split('=')[0]!;
    throw new LibsqlError(
      `Unsupported URL query parameter ${JSON.stringify(decodeURIComponent(key))}`,
      'URL_PARAM_NOT_SUPPORTED',
    );
  }
  if (fragment !== undefined)
    throw new LibsqlError(`URL fragments are not supported: ${JSON.stringify(fragment)}`, 'URL_INVALID');
  return decodeURIComponent(path!);
}

export class EmbeddedClient implements Client {
  closed = false;
  readonly protocol = 'file';
  readonly #path: string;
  readonly #cap: number;
  readonly #setup: string[];
  readonly #reopenOnBusy: boolean;
  #conn: Connection | null;

  constructor(
    url: string,
    {
      statementCacheSize = DEFAULT_STATEMENT_CACHE_SIZE,
      connectionSetup = [],
      reopenOnBusy = false,
    }: EmbeddedClientOptions = {},
  ) {
    this.#path = embeddedPath(url);
    this.#cap = statementCacheSize;
    this.#setup = connectionSetup;
    this.#reopenOnBusy = reopenOnBusy;
    this.#conn = this.#open();
    this.#conn.run('SELECT 1 AS checkThatTheDatabaseCanBeOpened', undefined);
  }

  /** How many prepared statements the current connection keeps (tests: the cache is bounded). */
  get cachedStatements(): number {
    return this.#conn?.cachedStatements ?? 0;
  }

  #open(): Connection {
    let conn: Connection;
    try {
      conn = new Connection(this.#path, this.#cap);
    } catch (e) {
      throw mapError(e);
    }
    for (const sql of this.#setup) conn.run(sql, undefined);
    return conn;
  }

  #connection(): Connection {
    if (this.closed) throw new LibsqlError('The client is closed', 'CLIENT_CLOSED');
    return (this.#conn ??= this.#open());
  }

  /** After a busy failure: forget the connection (and its statements); the next call opens a new one. */
  #failed(conn: Connection, err: unknown): unknown {
    if (this.#reopenOnBusy && this.#conn === conn && isBusyFailure(err)) {
      this.#conn = null;
      try {
        conn.close();
      } catch {
        /* a wedged connection may refuse to close; it is dropped either way */
      }
    }
    return err;
  }

  async execute(stmtOrSql: InStatement | string, args?: InArgs): Promise<ResultSet> {
    const conn = this.#connection();
    try {
      return typeof stmtOrSql === 'string' ? conn.run(stmtOrSql, args) : conn.run(stmtOrSql.sql, stmtOrSql.args);
    } catch (err) {
      throw this.#failed(conn, err);
    }
  }

  async batch(stmts: Array<InStatement | [string, InArgs?]>, mode: TransactionMode = 'deferred'): Promise<ResultSet[]> {
    const conn = this.#connection();
    try {
      return conn.batch(stmts, beginFor(mode));
    } catch (err) {
      throw this.#failed(conn, err);
    }
  }

  async migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    const conn = this.#connection();
    conn.run('PRAGMA foreign_keys=off', undefined);
    try {
      return conn.batch(stmts, beginFor('deferred'));
    } finally {
      conn.run('PRAGMA foreign_keys=on', undefined);
    }
  }

  async transaction(mode: TransactionMode = 'write'): Promise<Transaction> {
    const conn = this.#connection();
    conn.run(beginFor(mode), undefined);
    this.#conn = null; // the client opens a new connection on next use
    return new EmbeddedTransaction(conn);
  }

  async executeMultiple(sql: string): Promise<void> {
    const conn = this.#connection();
    try {
      conn.exec(sql);
    } finally {
      if (conn.db.inTransaction) conn.run('ROLLBACK', undefined);
    }
  }

  async sync(): Promise<never> {
    throw new LibsqlError('sync() is not supported by the embedded client', 'SYNC_NOT_SUPPORTED');
  }

  async reconnect(): Promise<void> {
    try {
      if (!this.closed && this.#conn !== null) this.#conn.close();
    } finally {
      this.#conn = null;
      this.closed = false;
      this.#conn = this.#open();
    }
  }

  close(): void {
    this.closed = true;
    if (this.#conn !== null) {
      const conn = this.#conn;
      this.#conn = null;
      conn.close();
    }
  }
}

/** Opens an embedded database (`file:` URL or `:memory:`). */
export function createEmbeddedClient(url: string, options?: EmbeddedClientOptions): EmbeddedClient {
  return new EmbeddedClient(url, options);
}
