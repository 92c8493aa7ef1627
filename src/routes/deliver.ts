/**
 * Hands a code or link to its recipient (contract §3.4, §5.10). With external
 * delivery granted (valid service token + `x-svc-auth-delivery-mode: external`)
 * the payload goes into the response (`null` for a decoy) and nothing is sent.
 * Otherwise the API's own sender runs after the response, not awaited.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../deps.js';
import { dispatchMessage, type DispatchContext } from '../services/delivery/index.js';
import type { DeliveryPayload } from '../services/delivery/types.js';
import { runInBackground } from '../http/background.js';

export function deliver(
  c: Context<AppEnv>,
  payload: DeliveryPayload | null,
  ctx: DispatchContext | null,
): { delivery?: DeliveryPayload | null } {
  if (c.get('client').externalDelivery) return { delivery: payload };
  if (payload && ctx) {
    const deps = c.get('deps');
    runInBackground(c, dispatchMessage(deps, payload, ctx), (err) =>
      deps.log.log('error', 'delivery dispatch crashed', { error: (err as Error)?.name }),
    );
  }
  return {};
}
