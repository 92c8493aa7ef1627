import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createClient } from '@libsql/client';
import { describe, expect, it } from 'vitest';
import { applyMigrations } from '../../../src/db/migrate.js';
import { MIGRATIONS } from '../../../src/db/migrations.generated.js';
import { tempDbFile } from '../../helpers/temp-db.js';

/** The same transformation as scripts/gen-migrations.mjs, re-run on migrations/ now. */
function fromSqlFiles() {
  const journal = JSON.parse(readFileSync('migrations/meta/_journal.json', 'utf8')) as {
    entries: { tag: string; when: number }[];
  };
  return journal.entries.map((e) => {
    const sql = readFileSync(`migrations/${e.tag}.sql`, 'utf8');
    return {
      tag: e.tag,
      folderMillis: e.when,
      hash: createHash('sha256').update(sql).digest('hex'),
      statements: sql
        .split('--> statement-breakpoint')
        .map((s) => s.trim())
        .filter(Boolean),
    };
  });
}

const tables = async (client: ReturnType<typeof createClient>) =>
  (await client.execute("SELECT name FROM sqlite_master WHERE type IN ('table','index') ORDER BY name")).rows.map(
    (r) => r['name'],
  );

describe('migrations', () => {
  it('the bundled module matches migrations/*.sql (run `npm run db:generate` after changing the schema)', () => {
    expect(MIGRATIONS).toEqual(fromSqlFiles());
  });

  it('creates every table of contract §2', async () => {
    const client = createClient({ url: ':memory:' });
    expect(await applyMigrations(client)).toBe(MIGRATIONS.length);
    const names = await tables(client);
    for (const t of [
      'users',
      'credentials',
      'sessions',
      'organizations',
      'organization_memberships',
      'oauth_identities',
      'totp_credentials',
      'webauthn_challenges',
      'magic_link_tokens',
      'otp_codes',
      'auth_events',
      'auth_failures',
      'lockouts',
      'system_config',
      'rate_limit_counters',
      'oauth_consumed_states',
      'signing_keys',
    ]) {
      expect(names).toContain(t);
    }
  });

  it('applying twice is a no-op', async () => {
    const client = createClient({ url: ':memory:' });
    await applyMigrations(client);
    const before = await tables(client);
    expect(await applyMigrations(client)).toBe(0);
    expect(await tables(client)).toEqual(before);
    const rows = await client.execute('SELECT hash, created_at FROM __drizzle_migrations');
    expect(rows.rows.map((r) => r['hash'])).toEqual(MIGRATIONS.map((m) => m.hash));
  });

  it('two instances booting at once on one file both succeed and apply once', async () => {
    const db = tempDbFile();
    try {
      const a = createClient({ url: db.url });
      const b = createClient({ url: db.url });
      for (const c of [a, b]) await c.execute('PRAGMA busy_timeout = 5000');
      const applied = await Promise.all([applyMigrations(a), applyMigrations(b)]);
      expect(applied.reduce((x, y) => x + y, 0)).toBe(MIGRATIONS.length);
      const rows = await a.execute('SELECT count(*) AS n FROM __drizzle_migrations');
      expect(Number(rows.rows[0]!['n'])).toBe(MIGRATIONS.length);
      a.close();
      b.close();
    } finally {
      db.remove();
    }
  });
});
