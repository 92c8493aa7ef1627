/**
 * Which bundled migrations a database has, read without writing anything
 * (`applyMigrations` creates its bookkeeping table; `--dry-run` and `doctor`
 * must not). Same rule as src/db/migrate.ts: a migration is applied when its
 * folder millis are at or below the newest recorded one.
 */
import type { Client } from '@libsql/client';
import type { Migration } from '../src/db/migrate.js';
import { MIGRATIONS } from '../src/db/migrations.generated.js';
import { CliError, EXIT } from './exit-codes.js';

export interface MigrationStatus {
  applied: Migration[];
  pending: Migration[];
  /** The database records a migration newer than any this package bundles (a newer svc migrated it). */
  ahead: boolean;
}

export async function migrationStatus(client: Client, migrations: Migration[] = MIGRATIONS): Promise<MigrationStatus> {
  const table = await client.execute(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'",
  );
  let last = 0;
  if (table.rows.length) {
    const rs = await client.execute('SELECT created_at FROM __drizzle_migrations ORDER BY created_at DESC LIMIT 1');
    const v = rs.rows[0]?.['created_at'];
    last = v == null ? 0 : Number(v);
  }
  const newest = Math.max(0, ...migrations.map((m) => m.folderMillis));
  return {
    applied: migrations.filter((m) => m.folderMillis <= last),
    pending: migrations.filter((m) => m.folderMillis > last),
    ahead: last > newest,
  };
}

/** Commands that read or write rows refuse a database that is not fully migrated. */
export async function requireMigrated(client: Client): Promise<void> {
  const status = await migrationStatus(client);
  if (status.pending.length) {
    throw new CliError(
      EXIT.environment,
      'not_migrated',
      `the database has ${status.pending.length} pending migration(s) (${status.pending.map((m) => m.tag).join(', ')}): run svc migrate first`,
    );
  }
}
