/**
 * Hot queries are built once per database handle: drizzle's query
 * building (`entity.is`, selection ordering, casing) cost more CPU per request
 * than SQLite itself. `prepared(build)` returns a getter that builds the
 * prepared query on first use for a given `Db` and reuses it after; the query
 * then runs with bound placeholder values only. Works on every client behind
 * drizzle's libSQL session: file, sqld/Turso over HTTP, and D1 through
 * `d1Client` (a prepared query is one `client.execute` with args).
 *
 * Placeholders in a WHERE bypass the column's encoder: pass driver values
 * (epoch milliseconds for timestamps, 0/1 for booleans), never `Date`s.
 *
 * @example
 * const byId = prepared((db) => db.select().from(users).where(eq(users.id, sql.placeholder('id'))).prepare());
 * const row = await byId(db).get({ id });
 */
import type { InValue } from '@libsql/client';
import { is, Param, Placeholder } from 'drizzle-orm';
import type { Db } from '../client.js';

export function prepared<T>(build: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<Db, T>();
  return (db) => {
    let query = cache.get(db);
    if (query === undefined) {
      query = build(db);
      cache.set(db, query);
    }
    return query;
  };
}

/**
 * drizzle's `fillPlaceholders`, decided once per parameter of a prepared query:
 * a placeholder, a placeholder behind a column encoder (insert and update
 * values: `Date` → epoch ms, booleans → 0/1), or a constant. Missing values
 * fail with drizzle's message.
 */
export function placeholderBinder(params: unknown[]): (values: Record<string, unknown>) => InValue[] {
  const binders = params.map((param): ((values: Record<string, unknown>) => unknown) => {
    const named = is(param, Placeholder)
      ? (param as Placeholder)
      : is(param, Param) && is((param as Param).value, Placeholder)
        ? ((param as Param).value as Placeholder)
        : null;
    if (!named) return () => param;
    const encoder = named === param ? null : (param as Param).encoder;
    return (values) => {
      if (!(named.name in values)) throw new Error(`No value for placeholder "${named.name}" was provided`);
      return encoder ? encoder.mapToDriverValue(values[named.name]) : values[named.name];
    };
  });
  return (values) => {
    const args = new Array<InValue>(binders.length);
    for (let i = 0; i < binders.length; i++) args[i] = binders[i]!(values) as InValue;
    return args;
  };
}
