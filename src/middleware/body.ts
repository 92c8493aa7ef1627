/**
 * Body handling (contract §3.0 step 4): > 100 KB → 413, non-JSON → 400.
 * The parsed body is stored in `c.var.body` for the validators.
 */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { readBodyBytes } from '../../common/hono-request.js';

export const MAX_BODY_BYTES = 100 * 1024;
const decoder = new TextDecoder();

export const bodyParser = createMiddleware<AppEnv>(async (c, next) => {
  const method = c.req.method;
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return next();
  const bytes = await readBodyBytes(c, MAX_BODY_BYTES);
  if (bytes === 'too_large') throw fail('payload_too_large');
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
