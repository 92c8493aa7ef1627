/**
 * sqld/Turso: a libSQL client over the network, given the `createClient` of
 * the entry's choice (`@libsql/client` on Node, Bun and Deno, which also speaks
 * WebSocket; `@libsql/client/http` in the libSQL Workers entry, HTTP only).
 */
import type { Client, Config } from '@libsql/client';
import { wrapClient, type Database } from './client.js';

export type CreateLibsqlClient = (config: Config) => Client;

/**
 * A `fetch` that gives up on a database call: a wedged sqld (500
 * concurrent refreshes left it busy with no write completing) must not hold a
 * request forever. An abandoned batch either committed or did not, as one
 * unit; the caller answers 503 and the client retries with the same input.
 */
function fetchWithTimeout(timeoutMs: number): typeof fetch {
  return (input, init) =>
    fetch(input, {
      ...init,
      signal: init?.signal
        ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)])
        : AbortSignal.timeout(timeoutMs),
    });
}

/** Opens a remote libSQL database; `callTimeoutMs` > 0 bounds each HTTP call. */
export async function openRemote(
  createClient: CreateLibsqlClient,
  url: string,
  authToken: string | undefined,
  callTimeoutMs = 0,
): Promise<Database> {
  const overHttp = /^https?:/.test(url);
  const client = createClient({
    url,
    authToken,
    intMode: 'number',
    ...(overHttp && callTimeoutMs > 0 ? { fetch: fetchWithTimeout(callTimeoutMs) } : {}),
  });
  await client.execute('PRAGMA foreign_keys = ON');
  return wrapClient(client, 'remote');
}
