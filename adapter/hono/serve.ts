/**
 * The per-request wrapper shared by the adapter and the bridge: parse, handle,
 * respond, and a redacted 500 on surprises.
 */
import type { Context } from 'hono';
import type { AdapterCore } from '../core/core.js';
import type { AdapterRequest } from '../core/pipeline.js';
import type { HandlerResult } from '../core/result.js';
import { internalFailure } from '../core/wire.js';
import { toAdapterRequest } from './request.js';
import { respond } from './respond.js';

/** Runs one request through `handler`; an unexpected error becomes a logged 500 without its stack. */
export async function serve(
  c: Context,
  core: AdapterCore,
  handler: (req: AdapterRequest) => Promise<HandlerResult>,
): Promise<Response> {
  try {
    const parsed = await toAdapterRequest(c, core.opts);
    if (!parsed.ok) return respond(c, core, parsed.result);
    return respond(c, core, await handler(parsed.req));
  } catch (e) {
    return respond(c, core, internalFailure(core, c.req.method, c.req.path, e));
  }
}
