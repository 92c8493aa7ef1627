/** Turns an upstream `delivery` payload into messages to dispatch (contract §5.10). */
import type { AdapterCore } from '../core.js';
import { parseDelivery, renderMessage, type AuthMessage } from '../../../common/messaging.js';
import { isObject } from './forward.js';

export function collectDeliveries(core: AdapterCore, body: unknown): AuthMessage[] {
  const messaging = core.opts.messaging;
  if (!messaging || !isObject(body)) return [];
  if (!('delivery' in body)) {
    core.opts.log(
      'warn',
      'svc adapter: auth API returned no delivery payload; check that serviceSecret matches API_SERVICE_TOKEN',
    );
    return [];
  }
  const delivery = parseDelivery(body['delivery']);
  if (delivery === null) return []; // decoy: nothing to send, silently
  if (delivery === undefined) {
    core.opts.log('warn', 'svc adapter: auth API returned a malformed delivery payload');
    return [];
  }
  const d = messaging.defaults ?? {};
  return [
    renderMessage(delivery, {
      appName: d.appName ?? new URL(core.opts.issuer).host,
      emailFrom: d.emailFrom,
      smsFrom: d.smsFrom,
    }),
  ];
}
