/**
 * Writes that commit together, from statements prepared once.
 * drizzle's `db.batch` takes query builders, so a builder had to be built on
 * every call (~90 µs for the session insert and the `last_login_at` update of
 * each sign-in on Node). `preparedWrite(query)` keeps the SQL of a query
 * prepared with placeholders and binds values per call exactly as drizzle's
 * `fillPlaceholders` does (column encoders included: `Date` → epoch ms);
 * `batchWrites` sends those statements, and any builders a caller adds, to the
 * client's `batch` — the one transaction drizzle's `db.batch` would run.
 *
 * @example
 * const touch = prepared((db) => preparedWrite(db.update(users).set({ lastLoginAt: sql.placeholder('now') })
 *   .where(eq(users.id, sql.placeholder('userId'))).prepare()));
 * await batchWrites(touch(db).client, [touch(db).bind({ now: new Date(), userId })]);
 */
import type { Client, InStatement, InValue, ResultSet } from '@libsql/client';
import type { SQL } from 'drizzle-orm';
import { clientOf, type Db } from '../client.js';
import { placeholderBinder } from './prepared.js';

interface DrizzlePreparedWrite {
  query: { sql: string; params: unknown[] };
  client?: Client;
  tx?: unknown;
}

export interface PreparedWrite {
  /** The client the query was prepared on (the database handle's). */
  readonly client: Client;
  /** The statement with these placeholder values, ready for a batch. */
  bind(values: Record<string, unknown>): { sql: string; args: InValue[] };
}

/** A statement rendered once (`sql` with drizzle's params), bound per call. */
function bound(client: Client, sql: string, params: unknown[]): PreparedWrite {
  const bind = placeholderBinder(params);
  return { client, bind: (values) => ({ sql, args: bind(values) }) };
}

export function preparedWrite(prepared: unknown): PreparedWrite {
  const query = prepared as DrizzlePreparedWrite;
  if (!query.client || query.tx)
    throw new Error('preparedWrite: prepare the query on the database handle, not in a transaction');
  return bound(query.client, query.query.sql, query.query.params);
}

/**
 * A raw `sql` statement with `sql.placeholder`s, rendered once for `db`: for
 * the writes a query builder cannot express (an `INSERT … SELECT … RETURNING`,
 * a conditional `UPDATE` whose `WHERE` reads another row). Placeholders here
 * have no column encoder: bind driver values (epoch ms, never a `Date`).
 *
 * @example
 * const claim = prepared((db) => preparedStatement(db, sql`UPDATE sessions SET revoked_at = ${sql.placeholder('nowMs')} WHERE id = ${sql.placeholder('id')}`));
 * const [res] = await batchWrites(claim(db).client, [claim(db).bind({ nowMs: Date.now(), id })]);
 */
export function preparedStatement(db: Db, query: SQL): PreparedWrite {
  const { sql, params } = db.run(query).getQuery();
  return bound(clientOf(db), sql, params);
}

/**
 * Statements, then builders (their `toSQL()`), in one `client.batch`: all
 * commit or none does. Resolves to one result per statement, in order.
 */
export async function batchWrites(
  client: Client,
  statements: InStatement[],
  builders: readonly unknown[] = [],
): Promise<ResultSet[]> {
  const all = statements.slice();
  for (const builder of builders) {
    const { sql, params } = (builder as { toSQL(): { sql: string; params: unknown[] } }).toSQL();
    all.push({ sql, args: params as InValue[] });
  }
  return client.batch(all);
}
