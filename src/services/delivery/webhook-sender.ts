/**
 * HTTP delivery: POSTs the rendered message as JSON to `DELIVERY_WEBHOOK_URL`
 * with `fetch`, so it runs on every runtime. The receiver (your mail/SMS
 * gateway) authenticates the call by the signature header:
 *
 *   x-svc-delivery-signature: v1=<hex HMAC-SHA256(DELIVERY_WEBHOOK_SECRET, "svc/delivery-webhook:" + timestamp + "." + body)>
 *   x-svc-delivery-timestamp: <epoch ms>
 *
 * Any non-2xx answer, a network error or a 10 s timeout is a failed send.
 */
import { hmacSha256Hex } from '../../crypto/hash.js';
import { randomId } from '../../crypto/random.js';
import type { MessageSender } from './types.js';

export interface WebhookSenderOptions {
  url: string;
  secret: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  now?: () => number;
}

export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `v1=${hmacSha256Hex(secret, `svc/delivery-webhook:${timestamp}.${body}`)}`;
}

export function createWebhookSender(options: WebhookSenderOptions): MessageSender {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const timeoutMs = options.timeoutMs ?? 10_000;
  const now = options.now ?? Date.now;
  return {
    name: 'webhook',
    async send(message) {
      const id = randomId();
      const timestamp = String(now());
      const body = JSON.stringify({ id, ...message });
      const res = await doFetch(options.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-svc-delivery-id': id,
          'x-svc-delivery-timestamp': timestamp,
          'x-svc-delivery-signature': webhookSignature(options.secret, timestamp, body),
        },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      // Drain the body so the connection can be reused.
      await res.text().catch(() => undefined);
      return { accepted: res.ok, messageId: id };
    },
  };
}
