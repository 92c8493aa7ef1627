/**
 * Body handling (contract §3.0 step 4): > 100 KB → 413, non-JSON → 400.
 * The parsed body is stored in `c.var.body` for the validators.
 */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { readBodyBytes, requestHeader } from '../../common/hono-request.js';

export const MAX_BODY_BYTES = 100 * 1024;
const decoder = new TextDecoder();

/**
 * A non-JSON body of a `/oauth2/*` endpoint, kept as text: the provider's
 * client-facing endpoints take `application/x-www-form-urlencoded` (RFC 6749
 * §3.2) and check the type themselves (src/services/oauth-server/form.ts).
 */
export class RawBody {
  constructor(readonly text: string) {}
}

const isJson = (type: string | undefined) => /^application\/(?:[\w.+-]+\+)?json\b/i.test((type ?? '').trim());

export const bodyParser = createMiddleware<AppEnv>(async (c, next) => {
  const method = c.req.method;
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return next();
  const bytes = await readBodyBytes(c, MAX_BODY_BYTES);
  if (bytes === 'too_large') throw fail('payload_too_large');
  const text = bytes ? decoder.decode(bytes).trim() : '';
  if (c.req.path.startsWith('/oauth2/') && !isJson(requestHeader(c, 'content-type'))) {
    c.set('body', new RawBody(text));
    return next();
  }
  if (text !== '') {
    try {
      c.set('body', JSON.parse(text));
    } catch {
      throw fail('invalid_request', 'Malformed JSON body');
    }
  }
  await next();
});
