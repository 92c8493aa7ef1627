/**
 * Express → core: the pieces of a request the core pipeline needs. The body is
 * read inside the router by Express's own parser (`express.raw`, limit
 * `100kb`) and decoded by the core exactly as the Hono layer decodes it
 * (contract §5.13): > 100 KB → 413 `payload_too_large`, malformed JSON → 400
 * `invalid_request`, an empty body → none, whatever the Content-Type.
 */
import express, { type Request, type Response } from 'express';
import { parseCookieHeader } from '../core/cookies.js';
import { placeFromHeaders } from '../core/place.js';
import type { ResolvedOptions } from '../core/options.js';
import type { AdapterRequest } from '../core/pipeline.js';
import { failure } from '../core/result.js';
import { bodyless, bodyTooLarge, clientIpOf, decodeJsonBody, MAX_BODY_BYTES, type BodyOutcome } from '../core/wire.js';

/**
 * Default client address: the socket's peer address; never `X-Forwarded-For`
 * (so not `req.ip`, which trusts it under `trust proxy`).
 */
export const defaultClientIp = (req: Request): string | undefined => req.socket?.remoteAddress;

/** One header value (Node joins repeated headers; `undefined` when absent). */
export function header(req: Request, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

// Every Content-Type, as the Hono layer reads every body; no decompression (the Hono layer does none either).
const rawParser = express.raw({ limit: MAX_BODY_BYTES, type: (req) => !bodyless(req.method ?? 'GET'), inflate: false });

/** Reads the body with the router's own parser; a body an application parser already consumed is used as it left it. */
export async function readBody(req: Request, res: Response): Promise<BodyOutcome> {
  if (bodyless(req.method)) return { ok: true, body: undefined };
  const error = await new Promise<unknown>((resolve) => rawParser(req, res, resolve));
  if (error) {
    const e = error as { status?: number; type?: string };
    if (e.status === 413 || e.type === 'entity.too.large') return bodyTooLarge();
    return { ok: false, result: failure(400, 'invalid_request', 'Malformed JSON body') };
  }
  const body: unknown = req.body;
  if (body === undefined) return { ok: true, body: undefined };
  if (body instanceof Uint8Array) return decodeJsonBody(body);
  return { ok: true, body };
}

/**
 * The query as repeated values per name, as Hono's `c.req.queries()` gives it
 * (independent of the app's `query parser` setting).
 */
export function queriesOf(url: string): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null);
  const at = url.indexOf('?');
  if (at < 0) return out;
  for (const [k, v] of new URLSearchParams(url.slice(at + 1))) (out[k] ??= []).push(v);
  return out;
}

/** The operator's `clientPlaceHeader` values, sent as `x-svc-client-geo` (docs/devices.md). */
export const clientPlace = (req: Request, opts: Pick<ResolvedOptions, 'clientPlaceHeaders'>): string | undefined =>
  placeFromHeaders(opts.clientPlaceHeaders, (n) => header(req, n));

export function toAdapterRequest(req: Request, opts: ResolvedOptions, body: unknown): AdapterRequest {
  return {
    method: req.method,
    transportHeader: header(req, 'x-svc-auth-transport'),
    authorization: header(req, 'authorization'),
    origin: header(req, 'origin'),
    secFetchSite: header(req, 'sec-fetch-site'),
    cookies: parseCookieHeader(header(req, 'cookie')),
    params: { ...(req.params as Record<string, string>) },
    query: queriesOf(req.originalUrl ?? req.url),
    body,
    client: {
      ip: clientIpOf(opts, req, defaultClientIp),
      userAgent: header(req, 'user-agent'),
      geo: clientPlace(req, opts),
      challengeToken: header(req, 'x-svc-challenge-token'),
    },
    idempotencyKey: header(req, 'idempotency-key'),
  };
}
