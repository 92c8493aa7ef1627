/**
 * Applies the bundled drizzle-kit migrations. It keeps drizzle's own
 * `__drizzle_migrations` bookkeeping (hash + folder millis), so a deployment
 * may equally run `drizzle-kit migrate`; both see the same state. On D1 it
 * also reads and writes wrangler's `d1_migrations` (one row per applied
 * `migrations/<tag>.sql`), so `wrangler d1 migrations apply` and the boot
 * migrator can be mixed in either order without applying a file twice.
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

const WRANGLER_TABLE = 'd1_migrations';
// wrangler's own schema for its table (wrangler d1 migrations apply creates it the same way).
const WRANGLER_DDL = `CREATE TABLE IF NOT EXISTS ${WRANGLER_TABLE}(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`;
const isD1 = (client: Client) => client.protocol === 'd1';

async function lastApplied(client: Client, migrations: Migration[]): Promise<number> {
  await client.execute(
    `CREATE TABLE IF NOT EXISTS ${TABLE} (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)`,
  );
  const rs = await client.execute(`SELECT created_at FROM ${TABLE} ORDER BY created_at DESC LIMIT 1`);
  const v = rs.rows[0]?.['created_at'];
  let last = v == null ? 0 : Number(v);
  if (isD1(client)) {
    await client.execute(WRANGLER_DDL);
    const names = new Set(
      (await client.execute(`SELECT name FROM ${WRANGLER_TABLE}`)).rows.map((r) => String(r['name'])),
    );
    for (const m of migrations) if (names.has(`${m.tag}.sql`)) last = Math.max(last, m.folderMillis);
  }
  return last;
}

/** Applies pending migrations in one write batch. Safe when several instances boot at once. */
export async function applyMigrations(client: Client, migrations: Migration[] = MIGRATIONS): Promise<number> {
  const last = await lastApplied(client, migrations);
  const pending = migrations.filter((m) => m.folderMillis > last);
  if (pending.length === 0) return 0;
  const stmts = pending.flatMap((m) => [
    ...m.statements.map((sql) => ({ sql, args: [] })),
    { sql: `INSERT INTO ${TABLE} (hash, created_at) VALUES (?, ?)`, args: [m.hash, m.folderMillis] },
    ...(isD1(client)
      ? [{ sql: `INSERT OR IGNORE INTO ${WRANGLER_TABLE} (name) VALUES (?)`, args: [`${m.tag}.sql`] }]
      : []),
  ]);
  try {
    await client.batch(stmts, 'write');
  } catch (err) {
    // Another instance may have applied the same migrations between our read and write.
    const after = await lastApplied(client, migrations);
    if (after >= pending[pending.length - 1]!.folderMillis) return 0;
    throw err;
  }
  return pending.length;
}
