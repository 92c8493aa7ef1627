/**
 * Our embedded libSQL client (issue #17) for `file:` and `:memory:` databases
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
 * (array) mode into one small class per statement.
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
 * Node-only (a native module): `openDatabase` imports this file dynamically
 * for embedded URLs only, so the Workers bundle never reaches it.
 */
import Database from 'libsql';
import { LibsqlError } from '@libsql/client';
import { isBusyFailure } from './busy-recovery.js';
import type { Client, InArgs, InStatement, ResultSet, Row, Transaction, TransactionMode, Value } from '@libsql/client';
import { argsToSql, fromSql, genericRow, ResultSetImpl, rowBuilder } from './embedded-rows.js';

type NativeDb = InstanceType<typeof Database>;
type NativeStatement = ReturnType<NativeDb['prepare']>;

export interface EmbeddedClientOptions {
  /** Prepared statements kept per connection (default 500). */
  statementCacheSize?: number;
  /** SQL run on every new connection (the first, after `reconnect()`, after `transaction()`), e.g. PRAGMAs. */
  connectionSetup?: string[];
  /** Open a new connection after a busy failure (busy-recovery.ts). Files only: a new `:memory:` connection is a new, empty database. */
  reopenOnBusy?: boolean;
}

export const DEFAULT_STATEMENT_CACHE_SIZE = 500;

/** What a cached statement knows about itself. */
interface Prepared {
  /** For `all()` and `run()` (both reset the statement before they bind). */
  stmt: NativeStatement;
  /**
   * The same SQL prepared again, for `get()` only: libsql's `get()` binds
   * without resetting first (it resets after), so on a statement `all()` left
   * finished the new arguments would not bind and the old ones would run.
   */
  one: NativeStatement | null;
  reader: boolean;
  /** A plain SELECT: running it twice changes nothing. */
  select: boolean;
  /** Its last run returned no row: ask for one row first. */
  probe: boolean;
  /** A SELECT ending in `LIMIT 1` (`literal`) or `LIMIT ?` (`param`: when its argument, the last, is 1): one row at most. */
  limitOne: 'literal' | 'param' | null;
  columns: string[];
  columnTypes: string[];
  /** Builds one row from the (converted) raw values. */
  row: (values: Value[]) => Row;
}

function mapError(e: unknown): unknown {
  if (e instanceof Database.SqliteError) {
    const err = e as unknown as { message: string; code: string; rawCode?: number };
    return new LibsqlError(err.message, err.code, err.rawCode, e as Error);
  }
  return e;
}

const EMPTY: string[] = [];
const SELECT = /^\s*select\b/i;
const LIMIT_1 = /\blimit\s+1\s*;?\s*$/i;
const LIMIT_PARAM = /\blimit\s+\?\s*;?\s*$/i;
const COMMENT = /--|\/\*/;
const DDL = /^\s*(?:create|drop|alter)\b/i;
const NAMED_OR_NUMBERED = /\?\d|[:@$][A-Za-z_]/;

function beginFor(mode: TransactionMode): string {
  if (mode === 'write') return 'BEGIN IMMEDIATE';
  if (mode === 'read') return 'BEGIN TRANSACTION READONLY';
  if (mode === 'deferred') return 'BEGIN DEFERRED';
  throw new RangeError('Unknown transaction mode, supported values are "write", "read" and "deferred"');
}

function normalize(stmt: InStatement | [string, InArgs?]): { sql: string; args: InArgs | undefined } {
  if (typeof stmt === 'string') return { sql: stmt, args: undefined };
  if (Array.isArray(stmt)) return { sql: stmt[0], args: stmt[1] };
  return { sql: stmt.sql, args: stmt.args };
}

// --- one connection -------------------------------------------------------------

/** A native connection with its statement cache. */
class Connection {
  readonly db: NativeDb;
  readonly #cache = new Map<string, Prepared>();
  readonly #cap: number;

  constructor(path: string, cap: number) {
    this.db = new Database(path);
    this.#cap = Math.max(1, Math.trunc(cap));
  }

  get cachedStatements(): number {
    return this.#cache.size;
  }

  #prepare(sql: string): Prepared {
    let p = this.#cache.get(sql);
    if (p !== undefined) return p;
    const stmt = this.db.prepare(sql);
    const reader = stmt.reader;
    let columns = EMPTY;
    let columnTypes = EMPTY;
    if (reader) {
      stmt.raw(true);
      stmt.safeIntegers(true);
      const defs = stmt.columns();
      columns = defs.map((c) => c.name);
      columnTypes = defs.map((c) => c.type ?? '');
    }
    const select = reader && SELECT.test(sql);
    // Only where the text says it plainly: no comment, and for `LIMIT ?` only plain `?` placeholders (then its argument is the last).
    const plain = select && !COMMENT.test(sql);
    const limitOne = !plain ? null : LIMIT_1.test(sql) ? 'literal' : LIMIT_PARAM.test(sql) && !NAMED_OR_NUMBERED.test(sql) ? 'param' : null;
    p = { stmt, one: null, reader, select, probe: false, limitOne, columns, columnTypes, row: reader ? rowBuilder(columns) : noRows };
    if (this.#cache.size >= this.#cap) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(sql, p);
    return p;
  }

  #one(p: Prepared, sql: string): NativeStatement {
    if (p.one === null) {
      const one = this.db.prepare(sql);
      one.raw(true);
      one.safeIntegers(true);
      p.one = one;
    }
    return p.one;
  }

  /**
   * SQLite re-prepares a statement whose schema changed (another connection's
   * ALTER TABLE, say), so its rows may no longer match the column list read
   * when it was cached: prepare it again and answer from the new one.
   */
  #again(sql: string, args: InArgs | undefined): ResultSet {
    this.#cache.delete(sql);
    return this.run(sql, args);
  }

  run(sql: string, args: InArgs | undefined): ResultSet {
    const bound = argsToSql(args);
    let p: Prepared | undefined;
    try {
      p = this.#prepare(sql);
      if (p.reader) {
        if (p.limitOne !== null && (p.limitOne === 'literal' || (Array.isArray(bound) && bound[bound.length - 1] === 1))) {
          // At most one row: one native call (query, first row, reset).
          const first = this.#one(p, sql).get(bound) as unknown[] | undefined;
          if (first !== undefined && first.length !== p.columns.length) return this.#again(sql, args);
          return new ResultSetImpl(p.columns, p.columnTypes, first === undefined ? [] : [p.row(fromSql(first))], 0, undefined);
        }
        if (p.probe) {
          if (this.#one(p, sql).get(bound) === undefined) return new ResultSetImpl(p.columns, p.columnTypes, [], 0, undefined);
          p.probe = false;
        }
        const raw = p.stmt.all(bound) as unknown[][];
        if (raw.length > 0 && raw[0]!.length !== p.columns.length) return this.#again(sql, args);
        if (raw.length === 0 && p.select) p.probe = true;
        const rows = new Array<Row>(raw.length);
        for (let i = 0; i < raw.length; i++) rows[i] = p.row(fromSql(raw[i]!));
        return new ResultSetImpl(p.columns, p.columnTypes, rows, 0, undefined);
      }
      const info = p.stmt.run(bound) as { changes: number; lastInsertRowid: number | bigint };
      if (DDL.test(sql)) this.#cache.clear(); // cached column lists may have changed
      return new ResultSetImpl([], [], [], info.changes, BigInt(info.lastInsertRowid));
    } catch (e) {
      // A statement that failed may be left "in progress": never reuse it.
      if (p !== undefined && this.#cache.get(sql) === p) this.#cache.delete(sql);
      throw mapError(e);
    }
  }

  /** Statements in one transaction; ROLLBACK if any fails. Synchronous from BEGIN to COMMIT. */
  batch(stmts: Array<InStatement | [string, InArgs?]>, begin: string): ResultSet[] {
    const db = this.db;
    this.run(begin, undefined);
    try {
      const results = new Array<ResultSet>(stmts.length);
      for (let i = 0; i < stmts.length; i++) {
        if (!db.inTransaction) throw new LibsqlError('The transaction has been rolled back', 'TRANSACTION_CLOSED');
        const { sql, args } = normalize(stmts[i]!);
        results[i] = this.run(sql, args);
      }
      this.run('COMMIT', undefined);
      return results;
    } finally {
      if (db.inTransaction) this.run('ROLLBACK', undefined);
    }
  }

  exec(sql: string): void {
    this.#cache.clear(); // it may change the schema
    try {
      this.db.exec(sql);
    } catch (e) {
      throw mapError(e);
    }
  }

  close(): void {
    this.#cache.clear();
    this.db.close();
  }
}

function noRows(): never {
  throw new Error('unreachable: a statement without columns has no rows');
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
    throw new LibsqlError(`Unsupported URL query parameter ${JSON.stringify(decodeURIComponent(key))}`, 'URL_PARAM_NOT_SUPPORTED');
  }
  if (fragment !== undefined) throw new LibsqlError(`URL fragments are not supported: ${JSON.stringify(fragment)}`, 'URL_INVALID');
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

  constructor(url: string, { statementCacheSize = DEFAULT_STATEMENT_CACHE_SIZE, connectionSetup = [], reopenOnBusy = false }: EmbeddedClientOptions = {}) {
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

/** An interactive transaction on a connection of its own, closed once the transaction ends. */
class EmbeddedTransaction implements Transaction {
  readonly #conn: Connection;
  constructor(conn: Connection) {
    this.#conn = conn;
  }
  #release(): void {
    if (!this.#conn.db.inTransaction && this.#conn.db.open) this.#conn.close();
  }
  get closed(): boolean {
    return !this.#conn.db.open || !this.#conn.db.inTransaction;
  }
  #check(): void {
    if (this.closed) throw new LibsqlError('The transaction is closed', 'TRANSACTION_CLOSED');
  }
  async execute(stmt: InStatement): Promise<ResultSet> {
    this.#check();
    const { sql, args } = normalize(stmt);
    return this.#conn.run(sql, args);
  }
  async batch(stmts: InStatement[]): Promise<ResultSet[]> {
    return stmts.map((s) => {
      this.#check();
      const { sql, args } = normalize(s);
      return this.#conn.run(sql, args);
    });
  }
  async executeMultiple(sql: string): Promise<void> {
    this.#check();
    this.#conn.exec(sql);
  }
  async rollback(): Promise<void> {
    if (!this.#conn.db.open) return;
    this.#check();
    this.#conn.run('ROLLBACK', undefined);
    this.#release();
  }
  async commit(): Promise<void> {
    this.#check();
    this.#conn.run('COMMIT', undefined);
    this.#release();
  }
  close(): void {
    if (!this.#conn.db.open) return;
    if (this.#conn.db.inTransaction) this.#conn.run('ROLLBACK', undefined);
    this.#release();
  }
}

/** Opens an embedded database (`file:` URL or `:memory:`). */
export function createEmbeddedClient(url: string, options?: EmbeddedClientOptions): EmbeddedClient {
  return new EmbeddedClient(url, options);
}
