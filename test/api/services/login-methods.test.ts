import { describe, expect, it } from 'vitest';
import type { LoginMethod } from '../../../src/config/keys.js';
import { computeLoginMethods } from '../../../src/services/sign-in/login-methods.js';

const ALL: LoginMethod[] = ['oauth', 'phone_otp', 'email_otp', 'magic_link', 'passkey'];
const both = { hasPasskey: true, hasVerifiedPhone: true };
const neither = { hasPasskey: false, hasVerifiedPhone: false };

describe('computeLoginMethods (contract §3.2)', () => {
  it('example 1 — passkey-only: passkey allowed, a passkey exists, fallback off → ["passkey"] whatever the hint says', () => {
    expect(computeLoginMethods(ALL, false, both)).toEqual(['passkey']);
    expect(computeLoginMethods(ALL, false, both, false)).toEqual(['passkey']);
    expect(computeLoginMethods(ALL, false, both, true)).toEqual(['passkey']);
  });

  it('example 2 — fallback on: every allowed method in canonical order; passkeyAvailable:false removes passkey only', () => {
    expect(computeLoginMethods(ALL, true, both)).toEqual(['passkey', 'magic_link', 'email_otp', 'phone_otp']);
    expect(computeLoginMethods(ALL, true, both, false)).toEqual(['magic_link', 'email_otp', 'phone_otp']);
  });

  it('example 3 — no passkey, fallback off: the other allowed methods; phone_otp needs a verified phone', () => {
    expect(computeLoginMethods(ALL, false, neither)).toEqual(['magic_link', 'email_otp']);
    expect(computeLoginMethods(['passkey', 'magic_link'], false, neither)).toEqual(['magic_link']);
  });

  it('only lists methods in the policy and never oauth', () => {
    expect(computeLoginMethods(['oauth'], true, both)).toEqual([]);
    expect(computeLoginMethods(['email_otp', 'oauth'], true, both)).toEqual(['email_otp']);
    expect(computeLoginMethods(['magic_link', 'passkey'], true, both)).toEqual(['passkey', 'magic_link']);
    expect(computeLoginMethods(['passkey'], true, neither)).toEqual([]);
  });
});
