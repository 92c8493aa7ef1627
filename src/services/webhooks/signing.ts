/**
 * Standard Webhooks signing (https://www.standardwebhooks.com) through the
 * `standardwebhooks` package's `Webhook` class: pure JS (HMAC-SHA256 from
 * `fast-sha256`, base64 from `@stablelib/base64`), no `Buffer` and no `node:`
 * module, so it runs on Workers as it does on Node. The signature is never
 * computed by hand here.
 */
import { Webhook } from 'standardwebhooks';
import { toBase64 } from '../../../common/encoding.js';
import { randomBytes } from '../../crypto/random.js';

export const SECRET_PREFIX = 'whsec_';
/** 32 random bytes: inside the 24–64 bytes Standard Webhooks asks of a secret. */
const SECRET_BYTES = 32;

/** A new signing secret, `whsec_<base64>`. */
export const newWebhookSecret = (): string => `${SECRET_PREFIX}${toBase64(randomBytes(SECRET_BYTES))}`;

/**
 * The `webhook-signature` value: one `v1,<base64>` per secret, space-separated
 * (during a rotation's overlap both the new and the previous secret sign, so a
 * receiver holding either one verifies).
 */
export function signatureHeader(secrets: readonly string[], msgId: string, at: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(msgId, at, body)).join(' ');
}

/** The three Standard Webhooks headers of one attempt. */
export function webhookHeaders(secrets: readonly string[], msgId: string, atMs: number, body: string) {
  const at = new Date(atMs);
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(atMs / 1000)),
    'webhook-signature': signatureHeader(secrets, msgId, at, body),
  };
}
