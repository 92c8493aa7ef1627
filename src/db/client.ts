/**
 * The database handle: drizzle over a libSQL-shaped client (an embedded file,
 * sqld/Turso over HTTP, or D1 through `d1-client.ts`). Opening one from a URL
 * is `open.ts`; this file imports no client, so a Workers bundle that is
 * handed its client (D1) carries no libSQL driver.
 */
import type { Client } from '@libsql/client';
import * as driverCore from 'drizzle-orm/libsql/driver-core';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
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

/**
 * drizzle's `drizzle(client)` from `drizzle-orm/libsql` without its driver
 * module, which imports `@libsql/client` (and with it the whole HTTP and
 * WebSocket client) only to offer `drizzle(url)`. `construct` is what that
 * function calls for a client; it is exported by `driver-core` but not typed.
 */
const construct = (
  driverCore as unknown as {
    construct: (client: Client, config: { schema: typeof schema; casing: 'snake_case' }) => Db;
  }
).construct;

/** The libSQL-shaped client under a handle (drizzle's `construct` sets `$client`; its `Db` type omits it). */
export const clientOf = (db: Db): Client => (db as Db & { $client: Client }).$client;

/** Wraps an existing libSQL client (tests share one between two API instances). */
export function wrapClient(client: Client, kind: 'file' | 'remote'): Database {
  return { db: construct(client, { schema, casing: 'snake_case' }), client, kind };
}
