/** The provider's routes on a Hono app (`OAUTH_SERVER_ROUTES`), and the root RFC 8414 form. */
import type { Context, Env, Hono } from 'hono';
import type { AdapterCore } from '../core/core.js';
import { parseCookieHeader } from '../core/cookies.js';
import { handleOAuthServerRequest, type OAuthServerRequest } from '../core/handlers/oauth-server.js';
import { rootMetadata, ROOT_METADATA_PREFIXES } from '../core/handlers/oauth-server-root.js';
import type { HandlerResult } from '../core/result.js';
import { bodyless, bodyTooLarge, clientIpOf, internalFailure, MAX_BODY_BYTES } from '../core/wire.js';
import { OAUTH_SERVER_ROUTES } from '../../common/route-table.js';
import { readBodyBytes, requestHeader } from '../../common/hono-request.js';
import { clientPlace, defaultClientIp } from './request.js';
import { respond } from './respond.js';

async function toRequest(
  c: Context,
  core: AdapterCore,
): Promise<{ ok: true; req: OAuthServerRequest } | { ok: false; result: HandlerResult }> {
  let body: Uint8Array | null = null;
  if (!bodyless(c.req.method)) {
    const read = await readBodyBytes(c, MAX_BODY_BYTES);
    if (read === 'too_large') return bodyTooLarge() as { ok: false; result: HandlerResult };
    body = read;
  }
  return {
    ok: true,
    req: {
      method: c.req.method,
      origin: requestHeader(c, 'origin'),
      secFetchSite: requestHeader(c, 'sec-fetch-site'),
      cookies: parseCookieHeader(requestHeader(c, 'cookie')),
      query: c.req.queries() as Record<string, string[]>,
      body,
      contentType: requestHeader(c, 'content-type'),
      authorization: requestHeader(c, 'authorization'),
      accept: requestHeader(c, 'accept'),
      requestHeaders: requestHeader(c, 'access-control-request-headers'),
      client: {
        ip: clientIpOf(core.opts, c, defaultClientIp),
        userAgent: requestHeader(c, 'user-agent'),
        geo: clientPlace(c, core.opts),
      },
    },
  };
}

async function run(c: Context, core: AdapterCore, handle: (req: OAuthServerRequest) => Promise<HandlerResult | null>) {
  try {
    const parsed = await toRequest(c, core);
    if (!parsed.ok) return respond(c, core, parsed.result);
    const result = await handle(parsed.req);
    return result ? respond(c, core, result) : null;
  } catch (e) {
    return respond(c, core, internalFailure(core, c.req.method, c.req.path, e));
  }
}

/** Mounts every provider route of the table (call before the 405 fallbacks). */
export function mountOAuthServer<E extends Env>(app: Hono<E>, core: AdapterCore): void {
  for (const route of OAUTH_SERVER_ROUTES)
    app.on(
      route.method,
      route.path,
      async (c) => (await run(c, core, (req) => handleOAuthServerRequest(core, OAUTH_SERVER_ROUTES, route, req)))!,
    );
}

/** `/.well-known/oauth-authorization-server/<issuer path>` and `/.well-known/openid-configuration/<issuer path>`. */
export function mountRootMetadata<E extends Env>(app: Hono<E>, core: AdapterCore): void {
  // Middleware, not routes (the Express twin is `router.use` too): only the issuer's own path answers,
  // decided per request from the metadata, and every other path below the prefix goes on to the app.
  for (const prefix of ROOT_METADATA_PREFIXES)
    app.use(`${prefix}/*`, async (c, next) => {
      if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && c.req.method !== 'OPTIONS') return next();
      const out = await run(c, core, (req) => rootMetadata(core, c.req.path.slice(prefix.length), req));
      if (out) return out;
      await next();
    });
}
