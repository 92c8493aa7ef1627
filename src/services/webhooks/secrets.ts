/**
 * Endpoint signing secrets at rest: AES-256-GCM sealed (crypto/secret-box.ts,
 * purpose `webhook`, bound to the endpoint id). They cannot be hashed: signing
 * needs them in clear. The previous secret of a rotation keeps signing until
 * its expiry, so receivers can switch over without dropping deliveries.
 */
import { fromUtf8, utf8 } from '../../../common/encoding.js';
import { openSecret, sealSecret } from '../../crypto/secret-box.js';
import type { WebhookEndpointRow } from '../../db/schema.js';

/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export const sealWebhookSecret = (key: string, endpointId: string, secret: string) =>
  sealSecret(key, endpointId, utf8(secret), 'webhook');

async function open(key: string, endpointId: string, ciphertext: string, iv: string): Promise<string | null> {
  const plain = await openSecret(key, endpointId, { ciphertext, iv }, 'webhook');
  return plain ? fromUtf8(plain) : null;
}

/** The secrets that sign now: the current one, and the previous one while its overlap lasts. */
export async function signingSecrets(
  key: string,
  row: Pick<
    WebhookEndpointRow,
    'id' | 'secretCiphertext' | 'secretIv' | 'previousSecretCiphertext' | 'previousSecretIv' | 'previousSecretExpiresAt'
  >,
  nowMs: number,
): Promise<string[]> {
  const out: string[] = [];
  const current = await open(key, row.id, row.secretCiphertext, row.secretIv);
  if (current) out.push(current);
  if (
    row.previousSecretCiphertext &&
    row.previousSecretIv &&
    row.previousSecretExpiresAt &&
    row.previousSecretExpiresAt.getTime() > nowMs
  ) {
    const previous = await open(key, row.id, row.previousSecretCiphertext, row.previousSecretIv);
    if (previous) out.push(previous);
  }
  return out;
}
