/**
 * Body handling (contract §3.0 step 4): > 100 KB → 413, non-JSON → 400.
 * The parsed body is stored in `c.var.body` for the validators.
 */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { nodeIncoming, readNodeBody } from '../../adapter/core/node-body.js';
import { requestHeader } from '../../adapter/hono/headers.js';

export const MAX_BODY_BYTES = 100 * 1024;
const decoder = new TextDecoder();

async function readLimited(req: Request): Promise<Uint8Array | null> {
  if (!req.body) return null;
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      throw fail('payload_too_large');
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const ch of chunks) {
    out.set(ch, offset);
    offset += ch.byteLength;
  }
  return out;
}

export const bodyParser = createMiddleware<AppEnv>(async (c, next) => {
  const method = c.req.method;
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return next();
  const declared = Number(requestHeader(c, 'content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw fail('payload_too_large');
  // On Node the request's own stream is read directly (adapter/core/node-body.ts); elsewhere the WHATWG body.
  const incoming = nodeIncoming(c.env);
  let bytes: Uint8Array | null;
  if (incoming) {
    const read = await readNodeBody(incoming, MAX_BODY_BYTES);
    if (read === 'too_large') throw fail('payload_too_large');
    bytes = read;
  } else {
    bytes = await readLimited(c.req.raw);
  }
  const text = bytes ? decoder.decode(bytes).trim() : '';
  if (text !== '') {
    try {
      c.set('body', JSON.parse(text));
    } catch {
      throw fail('invalid_request', 'Malformed JSON body');
    }
  }
  await next();
});
