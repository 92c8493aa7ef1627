/**
 * Applies the bundled drizzle-kit migrations. It keeps drizzle's own
 * `__drizzle_migrations` bookkeeping (hash + folder millis), so a deployment
 * may equally run `drizzle-kit migrate`; both see the same state.
 */
import type { Client } from '@libsql/client';
import { MIGRATIONS } from './migrations.generated.js';

export interface Migration {
  tag: string;
  folderMillis: number;
  hash: string;
  statements: string[];
}

const TABLE = '__drizzle_migrations';

async function lastApplied(client: Client): Promise<number> {
  await client.execute(`CREATE TABLE IF NOT EXISTS ${TABLE} (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)`);
  const rs = await client.execute(`SELECT created_at FROM ${TABLE} ORDER BY created_at DESC LIMIT 1`);
  const v = rs.rows[0]?.['created_at'];
  return v == null ? 0 : Number(v);
}

/** Applies pending migrations in one write batch. Safe when several instances boot at once. */
export async function applyMigrations(client: Client, migrations: Migration[] = MIGRATIONS): Promise<number> {
  const last = await lastApplied(client);
  const pending = migrations.filter((m) => m.folderMillis > last);
  if (pending.length === 0) return 0;
  const stmts = pending.flatMap((m) => [
    ...m.statements.map((sql) => ({ sql, args: [] })),
    { sql: `INSERT INTO ${TABLE} (hash, created_at) VALUES (?, ?)`, args: [m.hash, m.folderMillis] },
  ]);
  try {
    await client.batch(stmts, 'write');
  } catch (err) {
    // Another instance may have applied the same migrations between our read and write.
    const after = await lastApplied(client);
    if (after >= pending[pending.length - 1]!.folderMillis) return 0;
    throw err;
  }
  return pending.length;
}
