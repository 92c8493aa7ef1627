/**
 * The one line a runtime entry prints when it cannot listen. A newcomer whose
 * port is taken (another `npm start`, another service) should read what to do,
 * not only the errno. Node and Bun say `code: "EADDRINUSE"`, Deno throws
 * `Deno.errors.AddrInUse` (`name: "AddrInUse"`).
 */
import { ConfigError } from './config-error.js';

const BUSY = new Set(['EADDRINUSE', 'AddrInUse']);

/** A `PORT` configuration error for a failed listen on `hostname:port`. */
export function listenError(hostname: string, port: number, err: unknown): ConfigError {
  const e = (err ?? {}) as { code?: unknown; name?: unknown; message?: unknown };
  const busy = BUSY.has(String(e.code)) || BUSY.has(String(e.name));
  const reason = busy ? 'EADDRINUSE' : String(typeof e.code === 'string' ? e.code : (e.message ?? err)).split('\n')[0];
  const hint = busy
    ? ': the port is in use; stop what uses it, or start with PORT=<another port> (HOST=<address> to change the address)'
    : '; set HOST=<address> and PORT=<port> to ones this machine can listen on';
  return new ConfigError('PORT', `cannot listen on ${hostname}:${port} (${reason})${hint}`);
}
