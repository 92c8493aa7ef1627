/**
 * Cloudflare Workers entry on sqld or Turso (`wrangler.sqld.example.toml`):
 * `DATABASE_URL` (http(s):// for sqld, libsql:// for Turso) and
 * `DATABASE_AUTH_TOKEN`, through libSQL's HTTP client — the smallest one, and
 * the transport Workers should use (no WebSocket). D1 is `src/worker.ts`.
 */
import { createClient } from '@libsql/client/http';
import { ConfigError } from './config/config-error.js';
import { openRemote } from './db/remote.js';
import { createWorker } from './worker-entry.js';

export default createWorker((env) => {
  const url = env['DATABASE_URL'];
  if (typeof url !== 'string' || !/^(https?|libsql):\/\//.test(url)) {
    throw new ConfigError(
      'DATABASE_URL',
      'must be an http(s):// (sqld) or libsql:// (Turso) URL on this entry; for D1 use main = "src/worker.ts"',
    );
  }
  return { open: (dbUrl, authToken, callTimeoutMs) => openRemote(createClient, dbUrl, authToken, callTimeoutMs) };
});
