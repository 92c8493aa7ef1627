/**
 * The edge of every framework layer, kept here so the Hono and Express
 * adapters cannot drift: the body rules of contract §5.13 (> 100 KB → 413,
 * malformed JSON → 400), the response plan as wire headers (§5.4: clears
 * before sets, cookies before the body), deliveries started once the answer is
 * decided (§5.10), and the redacted 500 for surprises.
 */
import { serializeClearCookie, serializeCookie } from './cookies.js';
import type { AdapterCore } from './core.js';
import { dispatchMessage } from '../../common/messaging.js';
import type { ResolvedOptions } from './options.js';
import { redact } from '../../common/redact.js';
import { failure, type HandlerResult } from './result.js';

/** Body limit of every mounted route (contract §5.13); Express's `"100kb"` is the same number. */
export const MAX_BODY_BYTES = 100 * 1024;

export type BodyOutcome = { ok: true; body: unknown } | { ok: false; result: HandlerResult };

export const bodyTooLarge = (): BodyOutcome => ({ ok: false, result: failure(413, 'payload_too_large') });

/** Methods whose body the adapter never reads (the API gets none either). */
export const bodyless = (method: string): boolean => method === 'GET' || method === 'HEAD' || method === 'OPTIONS';

/**
 * Deepest array/object nesting a body may have. The deepest body of the
 * contract (a WebAuthn response) nests 4 levels; 6,000 levels in 12 KB used to
 * overflow a recursive step downstream and answer 500.
 */
export const MAX_JSON_DEPTH = 64;

/** Scans once, outside strings, and stops at the first level past `max`. */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > max) return true;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return false;
}

/**
 * Decodes a request body already limited to `MAX_BODY_BYTES`: UTF-8, trimmed;
 * empty → `undefined`; any JSON value is accepted whatever the Content-Type;
 * nesting deeper than `MAX_JSON_DEPTH` → 400.
 */
export function decodeJsonBody(bytes: Uint8Array): BodyOutcome {
  if (bytes.byteLength > MAX_BODY_BYTES) return bodyTooLarge();
  const text = new TextDecoder().decode(bytes).trim();
  if (text === '') return { ok: true, body: undefined };
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH))
    return { ok: false, result: failure(400, 'invalid_request', `JSON nested deeper than ${MAX_JSON_DEPTH} levels`) };
  try {
    return { ok: true, body: JSON.parse(text) };
  } catch {
    return { ok: false, result: failure(400, 'invalid_request', 'Malformed JSON body') };
  }
}

/** The ordered `Set-Cookie` values of a result: clears first, then the signed sets. */
export function setCookieHeaders(core: AdapterCore, result: HandlerResult): string[] {
  const attrs = core.opts.cookie;
  const out = (result.clearCookies ?? []).map((name) => serializeClearCookie(name, attrs));
  if (!result.setCookies?.length) return out; // no clock read: a failure answer must not depend on it
  const nowMs = core.now();
  for (const s of result.setCookies)
    out.push(serializeCookie(s.name, core.codec.sign(s.payload, s.maxAge, nowMs), s.maxAge, attrs, nowMs));
  return out;
}

export interface WireResponse {
  status: number;
  /** Headers other than `Set-Cookie`, lower-case names. */
  headers: Record<string, string>;
  setCookies: string[];
  /** JSON text, or null for an empty body (always null for 204). */
  body: string | null;
}

/** A `HandlerResult` as bytes-on-the-wire decisions, identical for every framework. */
export function toWire(core: AdapterCore, result: HandlerResult): WireResponse {
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k.toLowerCase()] = v;
  let body: string | null = null;
  if (result.rawBody !== undefined && result.status !== 204) body = result.rawBody;
  else if (result.body !== undefined && result.status !== 204) {
    body = JSON.stringify(result.body);
    // A handler may pin the exact type (the association files are plain `application/json`).
    headers['content-type'] ??= 'application/json; charset=utf-8';
  }
  return { status: result.status, headers, setCookies: setCookieHeaders(core, result), body };
}

/**
 * Starts the result's deliveries; the promise never rejects (dispatchMessage
 * logs failures) and is not awaited by the response. Null when there is nothing to send.
 */
export function startDeliveries(core: AdapterCore, result: HandlerResult): Promise<unknown> | null {
  const messaging = core.opts.messaging;
  if (!messaging || !result.deliveries?.length) return null;
  return Promise.all(result.deliveries.map((m) => dispatchMessage(messaging, m, core.opts.log)));
}

/** Logs an unexpected error (redacted, with its stack) and returns the 500 envelope without it. */
export function internalFailure(core: AdapterCore, method: string, path: string, e: unknown): HandlerResult {
  try {
    core.opts.log('error', redact(`svc adapter: ${method} ${path} failed: ${(e as Error)?.stack ?? String(e)}`));
  } catch {
    // A throwing log sink must not turn the 500 envelope into the framework's error page.
  }
  return failure(500, 'internal_error');
}

/** `resolveClientIp` when given, else the framework's default; a throwing resolver means "unknown". */
export function clientIpOf<C>(
  opts: Pick<ResolvedOptions, 'resolveClientIp'>,
  ctx: C,
  fallback: (ctx: C) => string | undefined,
): string | undefined {
  try {
    return (opts.resolveClientIp ?? fallback)(ctx);
  } catch {
    return undefined;
  }
}
