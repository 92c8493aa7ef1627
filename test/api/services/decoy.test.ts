import { describe, expect, it } from 'vitest';
import { fromBase64Url } from '../../helpers/bytes.js';
import { decoyPrincipal, decoyShapeForSubject, decoySubject } from '../../../src/services/sign-in/decoy.js';

const K = 'decoy-secret-0123456789abcdef-0123456789';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('decoy principal (contract §1.10)', () => {
  it('derives a stable UUID v4 subject per type and identifier, and a different one per secret', () => {
    const a = decoySubject(K, 'email', 'x@example.com');
    expect(a).toMatch(UUID_V4);
    expect(decoySubject(K, 'email', 'x@example.com')).toBe(a);
    expect(decoySubject(K, 'phone', 'x@example.com')).not.toBe(a);
    expect(decoySubject(`${K}-other`, 'email', 'x@example.com')).not.toBe(a);
  });

  it('derives the shape from the subject bits; a phone identifier always has a verified phone', () => {
    const seen = { passkey: new Set<boolean>(), phone: new Set<boolean>(), transports: new Set<string>() };
    for (let i = 0; i < 64; i++) {
      const p = decoyPrincipal(K, 'email', `u${i}@example.com`);
      seen.passkey.add(p.hasPasskey);
      seen.phone.add(p.hasVerifiedPhone);
      seen.transports.add(p.transports.join());
      if (!p.hasPasskey) expect(p.prfCapable).toBe(false);
      expect(fromBase64Url(p.credentialId)).toHaveLength(32);
      expect(decoyShapeForSubject(K, p.subject, 'email')).toEqual({
        hasPasskey: p.hasPasskey,
        hasVerifiedPhone: p.hasVerifiedPhone,
        prfCapable: p.prfCapable,
        transports: p.transports,
        credentialId: p.credentialId,
      });
      expect(decoyPrincipal(K, 'phone', `+1415555${String(i).padStart(4, '0')}`).hasVerifiedPhone).toBe(true);
    }
    expect(seen.passkey).toEqual(new Set([true, false]));
    expect(seen.phone).toEqual(new Set([true, false]));
    expect(seen.transports).toEqual(new Set(['internal,hybrid', 'usb,nfc']));
  });

  it('treats a decoy whose methods would be empty as having a passkey and a verified phone', () => {
    for (let i = 0; i < 32; i++) {
      const p = decoyPrincipal(K, 'email', `v${i}@example.com`, {
        loginMethods: ['passkey', 'phone_otp'],
        fallback: true,
      });
      expect(p.hasPasskey || p.hasVerifiedPhone).toBe(true);
      if (
        !decoyPrincipal(K, 'email', `v${i}@example.com`).hasPasskey &&
        !decoyPrincipal(K, 'email', `v${i}@example.com`).hasVerifiedPhone
      ) {
        expect(p).toMatchObject({ hasPasskey: true, hasVerifiedPhone: true });
      }
    }
  });
});
