/**
 * Writes that commit together, from statements prepared once (issue #17).
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
import type { Client, InStatement, InValue } from '@libsql/client';
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

export function preparedWrite(prepared: unknown): PreparedWrite {
  const query = prepared as DrizzlePreparedWrite;
  if (!query.client || query.tx) throw new Error('preparedWrite: prepare the query on the database handle, not in a transaction');
  const bind = placeholderBinder(query.query.params);
  const { sql } = query.query;
  return { client: query.client, bind: (values) => ({ sql, args: bind(values) }) };
}

/** Statements, then builders (their `toSQL()`), in one `client.batch`: all commit or none does. */
export async function batchWrites(client: Client, statements: InStatement[], builders: readonly unknown[] = []): Promise<void> {
  const all = statements.slice();
  for (const builder of builders) {
    const { sql, params } = (builder as { toSQL(): { sql: string; params: unknown[] } }).toSQL();
    all.push({ sql, args: params as InValue[] });
  }
  await client.batch(all);
}
