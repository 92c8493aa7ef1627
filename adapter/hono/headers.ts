/**
 * Request headers without building a WHATWG `Headers` on Node. Under
 * @hono/node-server, `c.req.header()` makes the lazy request build a full
 * `Headers` from every raw header (undici's, ~0.5 of a guarded route's own
 * cost); the Node request itself is `c.env.incoming`, whose `headers` Node has
 * already parsed (lower-case names; repeated `Cookie` lines joined with `; `).
 * Other runtimes (Workers, Bun, Deno, `app.request`) have no `incoming` and
 * read the platform request's headers.
 */
import type { Context } from 'hono';

type NodeHeaders = Record<string, string | string[] | undefined>;

/** A request header by lower-case name, as `c.req.header(name)` answers it. */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: { headers?: NodeHeaders; rawHeaders?: unknown } } | undefined)?.incoming;
  const headers = incoming?.headers;
  // Only a Node request (it always has `rawHeaders`): on Workers `c.env` holds the bindings, and one may be called `incoming`.
  if (headers === undefined || headers === null || typeof headers !== 'object' || !Array.isArray(incoming!.rawHeaders)) return c.req.header(name);
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
