/**
 * Opens libSQL: `file:`/`:memory:` through our embedded client
 * (`embedded-client.ts`, Node/Bun/Deno), `http(s):`/`libsql:`/`ws(s):` (sqld,
 * Turso) through `@libsql/client`. On Workers the package's `workerd` export
 * condition selects its web (HTTP) client, so the same import works on every
 * runtime; D1 comes in as a client (`d1-client.ts`).
 */
import { createClient, type Client } from '@libsql/client';
import { drizzle, type LibSQLDatabase } from 'drizzle-orm/libsql';
import * as schema from './schema.js';

export type Db = LibSQLDatabase<typeof schema>;

export interface Database {
  db: Db;
  client: Client;
  /** `file` for embedded SQLite, `remote` for a libSQL server. */
  kind: 'file' | 'remote';
}

export function isEmbeddedUrl(url: string): boolean {
  return url === ':memory:' || url.startsWith('file:');
}

/** Wraps an existing libSQL client (tests share one between two API instances). */
export function wrapClient(client: Client, kind: 'file' | 'remote'): Database {
  return { db: drizzle(client, { schema, casing: 'snake_case' }), client, kind };
}

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
 * A `fetch` that gives up on a database call: a wedged sqld (issue #23: 500
 * concurrent refreshes left it busy with no write completing) must not hold a
 * request forever. An abandoned batch either committed or did not, as one
 * unit; the caller answers 503 and the client retries with the same input.
 */
function fetchWithTimeout(timeoutMs: number): typeof fetch {
  return (input, init) => fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs) });
}

/**
 * The embedded client (`embedded-client.ts`, over the native `libsql`
 * package) is imported only when an embedded URL is opened, and through a
 * specifier the bundler does not follow: the Workers bundle reaches this file
 * but must not contain a native module or a `node:` import.
 */
async function loadEmbeddedClient(): Promise<typeof import('./embedded-client.js')> {
  const specifier = ['.', 'embedded-client.js'].join('/');
  return (await import(/* @vite-ignore */ specifier)) as typeof import('./embedded-client.js');
}

export async function openDatabase(url: string, authToken?: string, { busyTimeoutMs = 5000, callTimeoutMs = 0 }: OpenOptions = {}): Promise<Database> {
  if (isEmbeddedUrl(url)) return openEmbedded(url, busyTimeoutMs);
  const overHttp = /^https?:/.test(url);
  const client = createClient({ url, authToken, intMode: 'number', ...(overHttp && callTimeoutMs > 0 ? { fetch: fetchWithTimeout(callTimeoutMs) } : {}) });
  await client.execute('PRAGMA foreign_keys = ON');
  return wrapClient(client, 'remote');
}

/**
 * `file:` and `:memory:`: our own client with a statement cache (issue #17).
 * Its per-connection settings run again on every connection it opens; after a
 * busy failure it opens a new one (busy-recovery.ts) — files only, a reopened
 * in-memory database would be a new, empty one. WAL is set once per file.
 */
async function openEmbedded(url: string, busyTimeoutMs: number): Promise<Database> {
  const memory = url === ':memory:' || url === 'file::memory:';
  const { createEmbeddedClient } = await loadEmbeddedClient();
  const connectionSetup = [`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`, 'PRAGMA synchronous = NORMAL', 'PRAGMA foreign_keys = ON'];
  const client = createEmbeddedClient(url, { connectionSetup, reopenOnBusy: !memory });
  if (!memory) await client.execute('PRAGMA journal_mode = WAL'); // persistent: once per file
  return wrapClient(client, 'file');
}
