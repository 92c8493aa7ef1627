/**
 * Opens libSQL from a URL: `file:`/`:memory:` (embedded), `http(s):`/`libsql:`/`ws(s):`
 * (sqld, Turso). The Node, Bun and Deno entries and `createAuthApi` use it;
 * the Workers entries bring their own client (`src/worker.ts`: D1,
 * `src/worker-libsql.ts`: libSQL's HTTP client).
 */
import { createClient, type Client } from '@libsql/client';
import { healOnBusy } from './busy-recovery.js';
import { isEmbeddedUrl, wrapClient, type Database } from './client.js';
import { openRemote } from './remote.js';

/**
 * Opens the database and applies per-connection settings. The embedded client
 * keeps a single connection as long as interactive transactions are never used
 * (we use `batch()` only), so these PRAGMAs hold for every statement.
 */
export interface OpenOptions {
  /** Embedded: how long a statement waits for another writer's lock. */
  busyTimeoutMs?: number;
  /** sqld/Turso over HTTP: one call (statement or batch) is abandoned after this (0: never). */
  callTimeoutMs?: number;
}

export async function openDatabase(url: string, authToken?: string, { busyTimeoutMs = 5000, callTimeoutMs = 0 }: OpenOptions = {}): Promise<Database> {
  if (!isEmbeddedUrl(url)) return openRemote(createClient, url, authToken, callTimeoutMs);
  const memory = url === ':memory:' || url === 'file::memory:';
  let client = createClient({ url, intMode: 'number' });
  const settings = async (c: Client) => {
    await c.execute(`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
    await c.execute('PRAGMA synchronous = NORMAL');
    await c.execute('PRAGMA foreign_keys = ON');
  };
  if (!memory) await client.execute('PRAGMA journal_mode = WAL'); // persistent: once per file
  await settings(client);
  // A reopened in-memory database would be a new, empty one: only files are healed.
  if (!memory) client = healOnBusy(client, settings);
  return wrapClient(client, 'file');
}
