/**
 * Cloudflare D1 behind the libSQL `Client` interface, so drizzle's
 * libSQL session, every repository and the migrator run unchanged on D1:
 * `execute` maps to a prepared statement, `batch` to `D1Database.batch` — one
 * implicit transaction, all or nothing, which is what every multi-statement
 * write here relies on (rotation, OTP/magic-link/challenge/state consume,
 * limiter counters are single statements or one batch). Interactive
 * transactions do not exist on D1 and are never used.
 *
 * Why not drizzle's own D1 driver: its run results carry `meta.changes` where
 * the code reads libSQL's `rowsAffected` in ~25 places, and its rows are
 * objects, which lose a column when a join selects two of the same name. This
 * shim keeps one code path for file, sqld, Turso and D1; the D1 tests run the
 * route suite's flows on a real local D1 under workerd.
 */
import type { Client, InArgs, InStatement, ResultSet, Row, TransactionMode } from '@libsql/client';

/** The part of Workers' `D1Database` used here (no dependency on @cloudflare/workers-types). */
export interface D1DatabaseLike {
  prepare(sql: string): D1PreparedStatementLike;
  batch(
    statements: D1PreparedStatementLike[],
  ): Promise<{ results?: Record<string, unknown>[]; meta?: { changes?: number; last_row_id?: number } }[]>;
}
export interface D1PreparedStatementLike {
  bind(...values: unknown[]): D1PreparedStatementLike;
  raw(options: { columnNames: true }): Promise<unknown[][]>;
  run(): Promise<{ meta?: { changes?: number; last_row_id?: number } }>;
}

/** True for a Workers D1 binding. */
export function isD1Binding(value: unknown): value is D1DatabaseLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as D1DatabaseLike).prepare === 'function' &&
    typeof (value as D1DatabaseLike).batch === 'function'
  );
}

/** A libSQL-style row: positions (non-enumerable, `length`) and column names (enumerable). */
function toRow(columns: string[], values: unknown[]): Row {
  const row: Record<string | number, unknown> = {};
  Object.defineProperty(row, 'length', { value: values.length, enumerable: false });
  values.forEach((v, i) => {
    Object.defineProperty(row, i, { value: v, enumerable: false });
    if (!(columns[i]! in row)) row[columns[i]!] = v;
  });
  return row as unknown as Row;
}

function resultSet(columns: string[], rows: unknown[][], rowsAffected: number, lastRowId?: number): ResultSet {
  return {
    columns,
    columnTypes: columns.map(() => ''),
    rows: rows.map((r) => toRow(columns, r)),
    rowsAffected,
    lastInsertRowid: lastRowId === undefined ? undefined : BigInt(lastRowId),
    toJSON: () => ({ columns, rows, rowsAffected }),
  };
}

function normalize(stmt: InStatement | [string, InArgs?], args?: InArgs): { sql: string; args: unknown[] } {
  if (typeof stmt === 'string') return { sql: stmt, args: Array.isArray(args) ? args : [] };
  if (Array.isArray(stmt)) return { sql: stmt[0], args: Array.isArray(stmt[1]) ? stmt[1] : [] };
  if (stmt.args && !Array.isArray(stmt.args)) throw new TypeError('d1: named arguments are not supported');
  return { sql: stmt.sql, args: (stmt.args as unknown[] | undefined) ?? [] };
}

/** Statements that answer rows: read them in raw mode (positional, duplicate names kept). */
const RETURNS_ROWS = /^\s*(select|with|pragma|explain|values)\b|\breturning\b/i;

const bind = (d1: D1DatabaseLike, s: { sql: string; args: unknown[] }) =>
  d1.prepare(s.sql).bind(...s.args.map((v) => (typeof v === 'bigint' ? Number(v) : v === undefined ? null : v)));

/** Wraps a D1 binding as a libSQL `Client` for `createAuthApi({ client })`. */
export function d1Client(d1: D1DatabaseLike): Client {
  const execute = async (stmt: InStatement, args?: InArgs): Promise<ResultSet> => {
    const s = normalize(stmt, args);
    if (RETURNS_ROWS.test(s.sql)) {
      const [columns = [], ...rows] = await bind(d1, s).raw({ columnNames: true });
      return resultSet(
        columns as string[],
        rows,
        /^\s*(select|with|pragma|explain|values)\b/i.test(s.sql) ? 0 : rows.length,
      );
    }
    const res = await bind(d1, s).run();
    return resultSet([], [], res.meta?.changes ?? 0, res.meta?.last_row_id);
  };
  const unsupported = (what: string) => () =>
    Promise.reject(new Error(`d1: ${what} is not supported (svc uses batch(), never interactive transactions)`));
  const client = {
    execute,
    async batch(stmts: (InStatement | [string, InArgs?])[], mode?: TransactionMode): Promise<ResultSet[]> {
      if (stmts.length === 0) return [];
      // D1's batch answers rows as objects, which lose a column when a join selects two of one name; a read
      // batch (src/db/driver/read-together.ts) runs its statements at once in raw mode instead. D1 has no read
      // transaction to share, so each sees the database as of its own statement (as separate reads would).
      if (mode === 'read')
        return Promise.all(stmts.map((st) => (Array.isArray(st) ? execute(st[0], st[1]) : execute(st))));
      const results = await d1.batch(stmts.map((st) => bind(d1, normalize(st))));
      return results.map((r) => {
        const objects = r.results ?? [];
        const columns = Object.keys(objects[0] ?? {});
        return resultSet(
          columns,
          objects.map((o) => columns.map((c) => o[c])),
          r.meta?.changes ?? 0,
          r.meta?.last_row_id,
        );
      });
    },
    migrate: unsupported('migrate()'),
    transaction: unsupported('transaction()'),
    async executeMultiple(sql: string) {
      for (const part of sql
        .split(';')
        .map((p) => p.trim())
        .filter(Boolean))
        await execute(part);
    },
    sync: unsupported('sync()'),
    close() {},
    reconnect() {},
    closed: false,
    protocol: 'd1',
  };
  return client as unknown as Client;
}
