/**
 * Hot queries are built once per database handle (issue #17): drizzle's query
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
import type { Db } from './client.js';

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
