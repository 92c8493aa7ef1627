/**
 * The two clients svc runs `file:` and `:memory:` databases with — our embedded
 * client (src/db/driver/embedded-client.ts) and `@libsql/client` — for tests that must
 * hold on both: a fresh, migrated in-memory database with foreign keys on.
 */
import { createClient, type Client } from '@libsql/client';
import { wrapClient, type Db } from '../../src/db/client.js';
import { createEmbeddedClient } from '../../src/db/driver/embedded-client.js';
import { applyMigrations } from '../../src/db/migrate.js';

export const FILE_CLIENTS = ['embedded', '@libsql/client'] as const;
export type FileClientKind = (typeof FILE_CLIENTS)[number];

/** Opens one; `opened` collects the clients so the suite can close them in `afterAll`. */
export async function migratedDatabase(kind: FileClientKind, opened: Client[]): Promise<{ db: Db; client: Client }> {
  const client =
    kind === 'embedded'
      ? (createEmbeddedClient(':memory:') as unknown as Client)
      : createClient({ url: ':memory:', intMode: 'number' });
  opened.push(client);
  await client.execute('PRAGMA foreign_keys = ON');
  await applyMigrations(client);
  return { db: wrapClient(client, 'file').db, client };
}
