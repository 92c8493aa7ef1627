/**
 * One native connection of the embedded client (`embedded-client.ts`) with
 * its bounded statement cache: how a statement is prepared once and
 * described (reader or not, columns, `LIMIT 1`), how it runs (the `get()`
 * shortcuts, the probe of SELECTs that found nothing, re-preparing after a
 * schema change), `batch` from BEGIN to COMMIT, and the mapping of SQLite's
 * errors to `LibsqlError`; plus `normalize`, shared with the transaction.
 * Node-only (a native module): only `embedded-client.ts` and
 * `embedded-transaction.ts` import it, never a file a Workers entry reaches.
 */
import Database from 'libsql';
import { LibsqlError } from '@libsql/client';
import type { InArgs, InStatement, ResultSet, Row, Value } from '@libsql/client';
import { argsToSql, fromSql, ResultSetImpl, rowBuilder } from './embedded-rows.js';

type NativeDb = InstanceType<typeof Database>;
type NativeStatement = ReturnType<NativeDb['prepare']>;

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
  /**
   * A SELECT ending in `LIMIT 1` (`literal`) or `LIMIT ?` (`param`: when its
   * argument, the last, is 1): one row at most.
   */
  limitOne: 'literal' | 'param' | null;
  columns: string[];
  columnTypes: string[];
  /** Builds one row from the (converted) raw values. */
  row: (values: Value[]) => Row;
}

export function mapError(e: unknown): unknown {
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

export function normalize(stmt: InStatement | [string, InArgs?]): { sql: string; args: InArgs | undefined } {
  if (typeof stmt === 'string') return { sql: stmt, args: undefined };
  if (Array.isArray(stmt)) return { sql: stmt[0], args: stmt[1] };
  return { sql: stmt.sql, args: stmt.args };
}

// --- one connection -------------------------------------------------------------

/** A native connection with its statement cache. */
export class Connection {
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
    // Only where the text says it plainly: no comment, and for `LIMIT ?` only
    // plain `?` placeholders (then its argument is the last).
    const plain = select && !COMMENT.test(sql);
    const limitOne = !plain
      ? null
      : LIMIT_1.test(sql)
        ? 'literal'
        : LIMIT_PARAM.test(sql) && !NAMED_OR_NUMBERED.test(sql)
          ? 'param'
          : null;
    p = {
      stmt,
      one: null,
      reader,
      select,
      probe: false,
      limitOne,
      columns,
      columnTypes,
      row: reader ? rowBuilder(columns) : noRows,
    };
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
        if (
          p.limitOne !== null &&
          (p.limitOne === 'literal' || (Array.isArray(bound) && bound[bound.length - 1] === 1))
        ) {
          // At most one row: one native call (query, first row, reset).
          const first = this.#one(p, sql).get(bound) as unknown[] | undefined;
          if (first !== undefined && first.length !== p.columns.length) return this.#again(sql, args);
          return new ResultSetImpl(
            p.columns,
            p.columnTypes,
            first === undefined ? [] : [p.row(fromSql(first))],
            0,
            undefined,
          );
        }
        if (p.probe) {
          if (this.#one(p, sql).get(bound) === undefined)
            return new ResultSetImpl(p.columns, p.columnTypes, [], 0, undefined);
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
