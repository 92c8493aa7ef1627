/**
 * Opens libSQL from a URL: `file:`/`:memory:` (embedded), `http(s):`/`libsql:`/`ws(s):`
 * (sqld, Turso). The Node, Bun and Deno entries and `createAuthApi` use it;
 * the Workers entries bring their own client (`src/worker.ts`: D1,
 * `src/worker-libsql.ts`: libSQL's HTTP client).
 */
import { createClient } from '@libsql/client';
import { isEmbeddedUrl, wrapClient, type Database } from './client.js';
import { openRemote } from './remote.js';

/**
 * Opens the database and applies per-connection settings. The embedded client
 * applies them on every connection it opens (its first, after a busy failure,
 * for an interactive transaction), so these PRAGMAs hold for every statement.
 */
export interface OpenOptions {
  /** Embedded: how long a statement waits for another writer's lock. */
  busyTimeoutMs?: number;
  /** sqld/Turso over HTTP: one call (statement or batch) is abandoned after this (0: never). */
  callTimeoutMs?: number;
}

/**
 * The embedded client (`driver/embedded-client.ts`, over the native `libsql`
 * package) is imported only when an embedded URL is opened, and through a
 * specifier bundlers do not follow: an app that bundles `svc-auth/api` for
 * Workers (where only remote URLs and D1 exist) must not get a native module
 * or a `node:` import. This repository's Workers entries do not import this file.
 */
async function loadEmbeddedClient(): Promise<typeof import('./driver/embedded-client.js')> {
  const specifier = ['.', 'driver', 'embedded-client.js'].join('/');
  return (await import(/* @vite-ignore */ specifier)) as typeof import('./driver/embedded-client.js');
}

export async function openDatabase(
  url: string,
  authToken?: string,
  { busyTimeoutMs = 5000, callTimeoutMs = 0 }: OpenOptions = {},
): Promise<Database> {
  if (!isEmbeddedUrl(url)) return openRemote(createClient, url, authToken, callTimeoutMs);
  return openEmbedded(url, busyTimeoutMs);
}

/**
 * `file:` and `:memory:`: our own client with a statement cache.
 * Its per-connection settings run again on every connection it opens; after a
 * busy failure it opens a new one (driver/busy-recovery.ts) — files only, a reopened
 * in-memory database would be a new, empty one. WAL is set once per file.
 */
async function openEmbedded(url: string, busyTimeoutMs: number): Promise<Database> {
  const memory = url === ':memory:' || url === 'file::memory:';
  const { createEmbeddedClient } = await loadEmbeddedClient();
  const connectionSetup = [
    `PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`,
    'PRAGMA synchronous = NORMAL',
    'PRAGMA foreign_keys = ON',
  ];
  const client = createEmbeddedClient(url, { connectionSetup, reopenOnBusy: !memory });
  if (!memory) await client.execute('PRAGMA journal_mode = WAL'); // persistent: once per file
  return wrapClient(client, 'file');
}
