/**
 * D1's binding surface (prepare/bind/raw/run/batch) over a real libSQL database,
 * for in-process tests of `d1Client` (src/db/d1-client.ts). Like D1, `batch`
 * runs as one transaction and answers rows as objects keyed by column name (a
 * join's duplicate names collapse, as D1's do); `failWhen` makes a statement,
 * alone or in a batch, throw like D1_ERROR. The real local D1 under workerd is
 * exercised by test/runtime/d1.smoke.test.ts and the conformance suite.
 */
import type { Client } from '@libsql/client';
import type { D1DatabaseLike, D1PreparedStatementLike } from '../../src/db/d1-client.js';

type Stmt = D1PreparedStatementLike & { sql: string; args: unknown[] };

/** D1's binding surface over libSQL; `failWhen` makes a statement (alone or in a batch) throw like D1_ERROR. */
export function fakeD1(c: Client, failWhen: (sql: string) => boolean = () => false): D1DatabaseLike {
  const check = (sql: string) => {
    if (failWhen(sql)) throw new Error('D1_ERROR: injected failure');
  };
  const stmt = (sql: string, args: unknown[] = []): Stmt => ({
    sql,
    args,
    bind: (...values: unknown[]) => stmt(sql, values),
    async raw() {
      check(sql);
      const r = await c.execute({ sql, args: args as never });
      return [r.columns, ...r.rows.map((row) => r.columns.map((_, i) => row[i]))];
    },
    async run() {
      check(sql);
      const r = await c.execute({ sql, args: args as never });
      return { meta: { changes: r.rowsAffected, last_row_id: Number(r.lastInsertRowid ?? 0) } };
    },
  });
  return {
    prepare: (sql) => stmt(sql),
    async batch(list) {
      const stmts = list as Stmt[];
      for (const s of stmts) check(s.sql); // D1 runs a batch as one transaction: a failure anywhere writes nothing
      const rs = await c.batch(
        stmts.map((s) => ({ sql: s.sql, args: s.args as never })),
        'write',
      );
      return rs.map((r) => ({
        results: r.rows.map((row) => Object.fromEntries(r.columns.map((col, i) => [col, row[i]]))),
        meta: { changes: r.rowsAffected, last_row_id: Number(r.lastInsertRowid ?? 0) },
      }));
    },
  };
}
