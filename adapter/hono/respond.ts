/**
 * Core → Hono: applies a `HandlerResult` (contract §5.4): clears before sets,
 * every cookie before the body; deliveries start once the response is decided
 * and are not awaited (`executionCtx.waitUntil` when the runtime has one).
 */
import type { Context } from 'hono';
import { serializeClearCookie, serializeCookie } from '../core/cookies.js';
import type { AdapterCore } from '../core/core.js';
import { dispatchMessage } from '../core/messaging.js';
import type { HandlerResult } from '../core/result.js';

/** The ordered `Set-Cookie` values of a result (shared with the Express twin through the core serializers). */
export function setCookieHeaders(core: AdapterCore, result: HandlerResult): string[] {
  const attrs = core.opts.cookie;
  const nowMs = core.now();
  const out = (result.clearCookies ?? []).map((name) => serializeClearCookie(name, attrs));
  for (const s of result.setCookies ?? []) out.push(serializeCookie(s.name, core.codec.sign(s.payload, s.maxAge, nowMs), s.maxAge, attrs, nowMs));
  return out;
}

function startDeliveries(c: Context, core: AdapterCore, result: HandlerResult) {
  const messaging = core.opts.messaging;
  if (!messaging || !result.deliveries?.length) return;
  const work = Promise.all(result.deliveries.map((m) => dispatchMessage(messaging, m, core.opts.log)));
  try {
    c.executionCtx.waitUntil(work);
  } catch {
    // Not on Workers: the promise runs on its own; dispatchMessage never rejects.
  }
}

export function respond(c: Context, core: AdapterCore, result: HandlerResult): Response {
  const headers = new Headers({ 'cache-control': 'no-store' });
  for (const value of setCookieHeaders(core, result)) headers.append('set-cookie', value);
  for (const [k, v] of Object.entries(result.headers ?? {})) headers.set(k, v);
  let body: string | null = null;
  if (result.body !== undefined && result.status !== 204) {
    body = JSON.stringify(result.body);
    headers.set('content-type', 'application/json; charset=utf-8');
  }
  startDeliveries(c, core, result);
  return new Response(body, { status: result.status, headers });
}
