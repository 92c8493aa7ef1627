/**
 * The TOTP bridge pipeline (contract §5.12): the access cookie's inner token
 * (never refreshed) or the pre-auth cookie's token, or the client's bearer.
 * No credential → 401 `{error:"unauthorized", message}` without any upstream
 * call; the message says which credential was missing, as on every other
 * adapter 401 (docs/contract-changes.md; a bare `{error}` told the client nothing).
 */
import type { AdapterCore } from './core.js';
import { passthrough, is2xx } from './handlers/forward.js';
import { forTransport, guardOrigin, mergeCookies, selectTransport, type AdapterRequest } from './pipeline.js';
import { failure, type HandlerResult } from './result.js';
import type { BridgeRouteEntry } from '../../common/route-table.js';
import { sessionResult } from './session-result.js';

export async function handleBridgeRequest(
  core: AdapterCore,
  route: BridgeRouteEntry,
  req: AdapterRequest,
): Promise<HandlerResult> {
  const transport = selectTransport(req.transportHeader);
  const blocked = guardOrigin(core, req, transport);
  if (blocked) return blocked;
  let authorization: string | null = null;
  if (transport === 'bearer') authorization = req.authorization ?? null;
  else {
    const nowMs = core.now();
    const { names } = core.opts;
    const claims =
      route.cred === 'access'
        ? core.codec.verify(req.cookies[names.access], 'access', nowMs)
        : core.codec.verify(req.cookies[names.preAuth], 'ephemeral', nowMs);
    if (claims && typeof claims.token === 'string') authorization = `Bearer ${claims.token}`;
  }
  if (!authorization) {
    const message =
      transport === 'bearer'
        ? 'Missing bearer token'
        : route.cred === 'access'
          ? 'Access session required'
          : 'Pre-auth session required';
    return failure(401, 'unauthorized', message);
  }
  const res = await core.call({
    method: route.method,
    path: route.raw,
    query: req.query,
    authorization,
    body: req.body,
    client: req.client,
  });
  if (route.response === 'session' && is2xx(res))
    return mergeCookies([], await sessionResult(core, res.status, res.body, transport));
  return forTransport(passthrough(res), transport);
}
