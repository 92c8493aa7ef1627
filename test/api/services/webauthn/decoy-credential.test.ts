import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decoyPasskey } from '../../../../src/services/webauthn/decoy-credential.js';

const K = 'decoy-secret-0123456789abcdef0123456789';
const policy = { loginMethods: ['passkey', 'magic_link'] as const, fallback: true };

/** Independent derivation of contract §1.10 with node:crypto. */
function expected(subject: string) {
  const b = createHmac('sha256', K).update(`svc/decoy-shape:${subject}`).digest()[0]!;
  const id = createHmac('sha256', K).update(`svc/decoy-credential:${subject}`).digest('base64url');
  return { b, id };
}

describe('decoyPasskey (contract §1.10)', () => {
  it('derives hasPasskey, prfCapable, transports and the credential id from the shape byte', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 64; i++) {
      const subject = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      const { b, id } = expected(subject);
      const d = decoyPasskey(K, subject, 'email', { ...policy, loginMethods: [...policy.loginMethods] });
      expect(d.hasPasskey).toBe((b & 1) === 1);
      expect(d.prfCapable).toBe((b & 1) === 1 && (b & 4) === 4);
      expect(d.transports).toEqual(b & 8 ? ['internal', 'hybrid'] : ['usb', 'nfc']);
      expect(d.credentialId).toBe(id);
      expect(d.credentialId).toHaveLength(43);
      seen.add(`${d.hasPasskey}:${d.prfCapable}:${d.transports[0]}`);
    }
    expect(seen.size).toBeGreaterThanOrEqual(5);
  });

  it('is stable per subject', () => {
    const a = decoyPasskey(K, 'subject-a', 'email', { loginMethods: ['passkey'], fallback: true });
    expect(decoyPasskey(K, 'subject-a', 'email', { loginMethods: ['passkey'], fallback: true })).toEqual(a);
  });

  it('treats a decoy whose loginMethods would be empty as having a passkey', () => {
    for (let i = 0; i < 32; i++) {
      const subject = `subject-${i}`;
      // passkey-only policy: without a passkey the decoy would have no way in.
      expect(decoyPasskey(K, subject, 'email', { loginMethods: ['passkey'], fallback: true }).hasPasskey).toBe(true);
    }
  });
});
