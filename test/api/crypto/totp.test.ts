import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import {
  matchTotpCounter,
  newTotpSecret,
  otpauthUrl,
  totpCounterAt,
  totpSecretBase32,
} from '../../../src/crypto/totp.js';

const at = (secret: Uint8Array, timestamp: number) =>
  TOTP.generate({
    secret: new Secret({ buffer: secret.slice().buffer }),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    timestamp,
  });

describe('TOTP parameters (contract §3.12)', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 10);

  it('matches the RFC 6238 SHA1 test vector', () => {
    const rfcSecret = new TextEncoder().encode('12345678901234567890');
    // RFC 6238 Appendix B, T = 59 s → 94287082 (8 digits); the 6-digit code is its last six digits.
    expect(matchTotpCounter(rfcSecret, '287082', 59_000)).toBe(1);
  });

  it('returns the counter of the matching step within ±1 step and null beyond', () => {
    const secret = newTotpSecret();
    const base = totpCounterAt(now);
    expect(matchTotpCounter(secret, at(secret, now), now)).toBe(base);
    expect(matchTotpCounter(secret, at(secret, now - 30_000), now)).toBe(base - 1);
    expect(matchTotpCounter(secret, at(secret, now + 30_000), now)).toBe(base + 1);
    const far = at(secret, now + 60_000);
    if (![-1, 0, 1].some((d) => at(secret, now + d * 30_000) === far))
      expect(matchTotpCounter(secret, far, now)).toBeNull();
  });

  it('refuses anything but six digits', () => {
    const secret = newTotpSecret();
    const code = at(secret, now);
    for (const bad of [`${code}0`, code.slice(1), ` ${code}`, `${code}\n`, 'abcdef', ''])
      expect(matchTotpCounter(secret, bad, now)).toBeNull();
  });

  it('makes 20-byte secrets encoded as unpadded base32', () => {
    const secret = newTotpSecret();
    expect(secret).toHaveLength(20);
    expect(totpSecretBase32(secret)).toMatch(/^[A-Z2-7]{32}$/);
    expect(Secret.fromBase32(totpSecretBase32(secret)).bytes).toEqual(secret);
  });

  it('builds the otpauth URL in the contract order with encoded issuer and account', () => {
    expect(otpauthUrl({ secretBase32: 'ABC', issuer: 'My App', accountName: 'a+b@x.io' })).toBe(
      'otpauth://totp/My%20App:a%2Bb%40x.io?secret=ABC&issuer=My%20App&algorithm=SHA1&digits=6&period=30',
    );
  });
});
