/** The provider's routes on an Express router (`OAUTH_SERVER_ROUTES`), and the root RFC 8414 form. */
import express, { type Request, type Response, type Router } from 'express';
import type { AdapterCore } from '../core/core.js';
import { parseCookieHeader } from '../core/cookies.js';
import { handleOAuthServerRequest, type OAuthServerRequest } from '../core/handlers/oauth-server.js';
import { rootMetadata, ROOT_METADATA_PREFIXES } from '../core/handlers/oauth-server-root.js';
import { HOST_METHODS, methodFallbacks, methodNotAllowed } from '../core/method-not-allowed.js';
import { failure, type HandlerResult } from '../core/result.js';
import { bodyless, clientIpOf, internalFailure, MAX_BODY_BYTES } from '../core/wire.js';
import { OAUTH_SERVER_ROUTES, type HttpMethod } from '../../common/route-table.js';
import { utf8 } from '../../common/encoding.js';
import { clientPlace, defaultClientIp, header, queriesOf } from './request.js';
import { respond } from './respond.js';

const rawParser = express.raw({ limit: MAX_BODY_BYTES, type: (req) => !bodyless(req.method ?? 'GET'), inflate: false });

/** The body bytes; one an application parser already consumed is re-encoded the way it came (best effort). */
async function bodyBytes(
  req: Request,
  res: Response,
): Promise<{ ok: true; body: Uint8Array | null } | { ok: false; result: HandlerResult }> {
  if (bodyless(req.method)) return { ok: true, body: null };
  const error = await new Promise<unknown>((resolve) => rawParser(req, res, resolve));
  if (error) {
    const e = error as { status?: number; type?: string };
    if (e.status === 413 || e.type === 'entity.too.large')
      return { ok: false, result: failure(413, 'payload_too_large') };
    return { ok: false, result: failure(400, 'invalid_request', 'Unreadable body') };
  }
  const body: unknown = req.body;
  if (body instanceof Uint8Array) return { ok: true, body: body.byteLength ? body : null };
  if (body === undefined || body === null) return { ok: true, body: null };
  if (typeof body === 'string') return { ok: true, body: utf8(body) };
  const form = header(req, 'content-type')?.toLowerCase().startsWith('application/x-www-form-urlencoded');
  return {
    ok: true,
    body: utf8(form ? new URLSearchParams(body as Record<string, string>).toString() : JSON.stringify(body)),
  };
}

function toRequest(req: Request, core: AdapterCore, body: Uint8Array | null): OAuthServerRequest {
  return {
    method: req.method,
    origin: header(req, 'origin'),
    secFetchSite: header(req, 'sec-fetch-site'),
    cookies: parseCookieHeader(header(req, 'cookie')),
    query: queriesOf(req.originalUrl ?? req.url),
    body,
    contentType: header(req, 'content-type'),
    authorization: header(req, 'authorization'),
    accept: header(req, 'accept'),
    requestHeaders: header(req, 'access-control-request-headers'),
    client: {
      ip: clientIpOf(core.opts, req, defaultClientIp),
      userAgent: header(req, 'user-agent'),
      geo: clientPlace(req, core.opts),
    },
  };
}

type Handle = (req: OAuthServerRequest, expressReq: Request) => Promise<HandlerResult | null>;

const serveWith =
  (core: AdapterCore, handle: Handle) =>
  async (req: Request, res: Response, next: (err?: unknown) => void): Promise<void> => {
    try {
      const read = await bodyBytes(req, res);
      if (!read.ok) return respond(res, core, read.result);
      const result = await handle(toRequest(req, core, read.body), req);
      if (result) respond(res, core, result);
      else next();
    } catch (e) {
      if (res.headersSent) return void res.destroy();
      respond(res, core, internalFailure(core, req.method, req.originalUrl.split('?')[0] ?? '', e));
    }
  };

const VERBS = { GET: 'get', POST: 'post', PATCH: 'patch', DELETE: 'delete', OPTIONS: 'options' } as const;

/** The provider routes below the mount, with their 405 fallbacks (same rules as the table router). */
export function oauthServerRouter(core: AdapterCore): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  for (const route of OAUTH_SERVER_ROUTES)
    router
      .route(route.path)
      [VERBS[route.method]](serveWith(core, (req) => handleOAuthServerRequest(core, OAUTH_SERVER_ROUTES, route, req)));
  const table = OAUTH_SERVER_ROUTES.filter((r): r is typeof r & { method: HttpMethod } => r.method !== 'OPTIONS');
  for (const { path, allow } of methodFallbacks(table))
    router.all(path, (req, res, next) =>
      HOST_METHODS.has(req.method.toUpperCase()) ? next() : respond(res, core, methodNotAllowed(allow(req.path))),
    );
  return router;
}

/** `/.well-known/oauth-authorization-server/<issuer path>` and `/.well-known/openid-configuration/<issuer path>`. */
export function rootMetadataRouter(core: AdapterCore): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  for (const prefix of ROOT_METADATA_PREFIXES)
    router.use(prefix, (req, res, next) => {
      if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS') return next();
      return serveWith(core, (r, expressReq) => rootMetadata(core, expressReq.path, r))(req, res, next);
    });
  return router;
}
