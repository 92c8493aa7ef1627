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
import { nodeIncoming, readNodeBody, readStreamLimited } from './body.js';

type NodeHeaders = Record<string, string | string[] | undefined>;

/** A request header by lower-case name, as `c.req.header(name)` answers it. */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: { headers?: NodeHeaders; rawHeaders?: unknown } } | undefined)?.incoming;
  const headers = incoming?.headers;
  // Only a Node request (it always has `rawHeaders`): on Workers `c.env` holds
  // the bindings, and one may be called `incoming`.
  if (headers === undefined || headers === null || typeof headers !== 'object' || !Array.isArray(incoming!.rawHeaders))
    return c.req.header(name);
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The request body of a Hono context as bytes, at most `limit` of them: a
 * declared `Content-Length` over the limit or a longer body is `'too_large'`;
 * no body stream at all is `null`. On @hono/node-server the Node request is
 * read directly (no WHATWG `Request` and stream per call); elsewhere the stream.
 * The API's body middleware and the Hono adapter both read bodies here.
 */
export async function readBodyBytes(c: Context, limit: number): Promise<Uint8Array | 'too_large' | null> {
  if (Number(requestHeader(c, 'content-length') ?? '0') > limit) return 'too_large';
  const incoming = nodeIncoming(c.env);
  if (incoming) return readNodeBody(incoming, limit);
  const stream = c.req.raw.body;
  return stream ? readStreamLimited(stream, limit) : null;
}
