/**
 * `svc migrate [--dry-run]`: the bundled migrations applied to DATABASE_URL
 * by the API's own migrator (one write batch: all pending migrations or none).
 */
import { existsSync } from 'node:fs';
import { applyMigrations } from '../../src/db/migrate.js';
import { MIGRATIONS } from '../../src/db/migrations.generated.js';
import type { CommandContext } from '../commands.js';
import { databaseTarget, firstLine, openTarget } from '../database.js';
import { CliError, EXIT, type ExitCode } from '../exit-codes.js';
import { migrationStatus } from '../migration-status.js';

export async function run({ values, env, out, cwd }: CommandContext): Promise<ExitCode> {
  const dryRun = values['dry-run'] === true;
  const target = databaseTarget(env, cwd);
  if (dryRun && target.filePath && !existsSync(target.filePath)) {
    // A dry run never creates the database file it reports on.
    const pending = MIGRATIONS.map((m) => m.tag);
    out.line(
      `${target.display}: ${out.paint('warn', `${pending.length} pending`)} (the file does not exist yet; svc migrate creates it)`,
    );
    for (const tag of pending) out.line(`  would apply ${tag}`);
    out.result({ ok: true, dryRun, database: target.display, applied: [], pending, alreadyApplied: [] });
    return EXIT.ok;
  }
  const database = await openTarget(target, { create: !dryRun });
  try {
    const before = await migrationStatus(database.client);
    if (before.ahead)
      out.note('warning: the database records a migration newer than this svc bundles (a newer version migrated it).');
    const pending = before.pending.map((m) => m.tag);
    if (dryRun || pending.length === 0) {
      const verb = pending.length === 0 ? 'up to date' : `${pending.length} pending`;
      out.line(
        `${target.display}: ${out.paint(pending.length ? 'warn' : 'ok', verb)} (${before.applied.length} applied)`,
      );
      for (const tag of pending) out.line(`  would apply ${tag}`);
      out.result({
        ok: true,
        dryRun,
        database: target.display,
        applied: [],
        pending,
        alreadyApplied: before.applied.map((m) => m.tag),
      });
      return EXIT.ok;
    }
    let ran: number;
    try {
      ran = await applyMigrations(database.client);
    } catch (err) {
      // One batch: a failed migration leaves the database as it was.
      throw new CliError(EXIT.failure, 'migration_failed', `migration failed, nothing applied (${firstLine(err)})`);
    }
    // 0 here means another process applied the same batch between our read and our write.
    const applied = ran === 0 ? [] : pending;
    if (ran === 0)
      out.line(`${target.display}: ${out.paint('ok', 'up to date')} (another process applied ${pending.join(', ')})`);
    else for (const tag of applied) out.line(`${out.paint('ok', 'applied')} ${tag}`);
    if (ran) out.line(`${target.display}: ${applied.length} migration(s) applied`);
    out.result({
      ok: true,
      dryRun,
      database: target.display,
      applied,
      pending: [],
      alreadyApplied: before.applied.map((m) => m.tag),
    });
    return EXIT.ok;
  } finally {
    database.client.close();
  }
}
