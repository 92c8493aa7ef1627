/**
 * Core → Express: writes the wire form of a `HandlerResult` (contract §5.4:
 * clears before sets, every cookie before the body) with `res.end`, so no
 * Express default (ETag, HTML error page) touches it. Deliveries start once the
 * response is decided and are not awaited.
 */
import type { Response } from 'express';
import type { AdapterCore } from '../core/core.js';
import type { HandlerResult } from '../core/result.js';
import { startDeliveries, toWire } from '../core/wire.js';

export function respond(res: Response, core: AdapterCore, result: HandlerResult): void {
  const wire = toWire(core, result);
  res.status(wire.status);
  for (const [name, value] of Object.entries(wire.headers)) res.setHeader(name, value);
  // append: cookies an earlier application middleware set are kept.
  for (const value of wire.setCookies) res.append('set-cookie', value);
  res.end(wire.body ?? undefined);
  void startDeliveries(core, result);
}

/** A guard's JSON answer (`requireAuth`, `requireRole`), shaped like Hono's `c.json`. */
export function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status);
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}
