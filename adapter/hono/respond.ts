/**
 * Core → Hono: writes the wire form of a `HandlerResult` (contract §5.4:
 * clears before sets, every cookie before the body); deliveries start once
 * the response is decided and are not awaited (`executionCtx.waitUntil` when
 * the runtime has one).
 */
import type { Context } from 'hono';
import type { AdapterCore } from '../core/core.js';
import type { HandlerResult } from '../core/result.js';
import { startDeliveries, toWire } from '../core/wire.js';

export function respond(c: Context, core: AdapterCore, result: HandlerResult): Response {
  const wire = toWire(core, result);
  const headers = new Headers(wire.headers);
  for (const value of wire.setCookies) headers.append('set-cookie', value);
  const work = startDeliveries(core, result);
  if (work) {
    try {
      c.executionCtx.waitUntil(work);
    } catch {
      // Not on Workers: the promise runs on its own and never rejects.
    }
  }
  return new Response(wire.body, { status: wire.status, headers });
}
