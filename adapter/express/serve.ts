/**
 * The per-request handler shared by the adapter router and the bridge: parse,
 * handle, respond, and a redacted 500 on surprises.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { AdapterCore } from '../core/core.js';
import type { AdapterRequest } from '../core/pipeline.js';
import type { HandlerResult } from '../core/result.js';
import { internalFailure } from '../core/wire.js';
import { readBody, toAdapterRequest } from './request.js';
import { respond } from './respond.js';

/** An Express handler that never calls `next(err)`: every outcome, failures included, is a JSON answer. */
export function serve(core: AdapterCore, handler: (req: AdapterRequest) => Promise<HandlerResult>): RequestHandler {
  return async (req: Request, res: Response) => {
    try {
      const parsed = await readBody(req, res);
      if (!parsed.ok) return respond(res, core, parsed.result);
      respond(res, core, await handler(toAdapterRequest(req, core.opts, parsed.body)));
    } catch (e) {
      const result = internalFailure(core, req.method, req.originalUrl.split('?')[0] ?? '', e);
      if (res.headersSent) return void res.destroy();
      try {
        respond(res, core, result);
      } catch {
        res.status(500).setHeader('content-type', 'application/json; charset=utf-8').end(JSON.stringify(result.body));
      }
    }
  };
}
