import { describe, expect, it } from 'vitest';
import { fromBase64Url, fromUtf8, toBase64Url } from '../../helpers/bytes.js';
import { hmacSha256, sha256 } from '../../../src/crypto/hash.js';
import {
  flowBindingHash,
  flowBindingMatches,
  newFlowBinding,
  newOAuthStatePayload,
  OAUTH_STATE_TTL_MS,
  pkceChallengeS256,
  pkceVerifier,
  signOAuthState,
  verifyOAuthState,
} from '../../../src/crypto/oauth-state.js';

const KEY = 'state-key-0123456789abcdef0123456789abcdef';
const NOW = Date.UTC(2026, 0, 1, 12);

describe('OAuth state (contract §1.9)', () => {
  const binding = newFlowBinding();
  const payload = newOAuthStatePayload({
    providerId: 'acme',
    redirectUri: 'https://app.example/cb',
    returnTo: 'https://app.example/x',
    nowMs: NOW,
    bindingHash: flowBindingHash(binding),
  });

  it('is b64url(JSON) "." b64url(HMAC(key, "svc/oauth-state:" + payloadB64)) with the contract payload', () => {
    const state = signOAuthState(KEY, payload);
    const [p, mac] = state.split('.') as [string, string];
    expect(mac).toBe(toBase64Url(hmacSha256(KEY, `svc/oauth-state:${p}`)));
    const decoded = JSON.parse(fromUtf8(fromBase64Url(p)));
    expect(decoded).toEqual({
      v: 1,
      stateId: payload.stateId,
      providerId: 'acme',
      redirectUri: 'https://app.example/cb',
      returnTo: 'https://app.example/x',
      nonce: payload.nonce,
      createdAt: NOW,
      bindingHash: toBase64Url(sha256(binding)),
    });
    expect(payload.stateId).toMatch(/^[0-9a-f-]{36}$/);
    expect(fromBase64Url(payload.nonce)).toHaveLength(16);
  });

  it('verifies within 10 minutes and 30 s of future skew, and refuses outside', () => {
    const state = signOAuthState(KEY, payload);
    expect(verifyOAuthState(KEY, state, { providerId: 'acme', nowMs: NOW + OAUTH_STATE_TTL_MS }).ok).toBe(true);
    expect(verifyOAuthState(KEY, state, { providerId: 'acme', nowMs: NOW + OAUTH_STATE_TTL_MS + 1 })).toEqual({
      ok: false,
      reason: 'expired',
    });
    expect(verifyOAuthState(KEY, state, { providerId: 'acme', nowMs: NOW - 30_000 }).ok).toBe(true);
    expect(verifyOAuthState(KEY, state, { providerId: 'acme', nowMs: NOW - 30_001 })).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('checks format, MAC, payload and provider in that order', () => {
    const state = signOAuthState(KEY, payload);
    const at = { providerId: 'acme', nowMs: NOW };
    expect(verifyOAuthState(KEY, 'nodot', at)).toEqual({ ok: false, reason: 'format' });
    expect(verifyOAuthState(KEY, `${state}.x`, at)).toEqual({ ok: false, reason: 'format' });
    expect(verifyOAuthState('another-key-0123456789abcdef0123456789', state, at)).toEqual({ ok: false, reason: 'mac' });
    const notJson = toBase64Url(new TextEncoder().encode('not json'));
    expect(
      verifyOAuthState(KEY, `${notJson}.${toBase64Url(hmacSha256(KEY, `svc/oauth-state:${notJson}`))}`, at),
    ).toEqual({ ok: false, reason: 'payload' });
    const v2 = signOAuthState(KEY, { ...payload, v: 2 as 1 });
    expect(verifyOAuthState(KEY, v2, at)).toEqual({ ok: false, reason: 'payload' });
    expect(verifyOAuthState(KEY, state, { providerId: 'other', nowMs: NOW })).toEqual({
      ok: false,
      reason: 'provider',
    });
    // An expired state for another provider fails on the provider check first (order of §1.9).
    expect(verifyOAuthState(KEY, state, { providerId: 'other', nowMs: NOW + OAUTH_STATE_TTL_MS * 2 })).toEqual({
      ok: false,
      reason: 'provider',
    });
  });

  it('derives a stateless PKCE verifier and its S256 challenge (RFC 7636)', () => {
    const verifier = pkceVerifier(KEY, payload.stateId);
    expect(verifier).toBe(toBase64Url(hmacSha256(KEY, `svc/oauth-pkce:${payload.stateId}`)));
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pkceVerifier(KEY, 'other')).not.toBe(verifier);
    expect(pkceChallengeS256(verifier)).toBe(toBase64Url(sha256(verifier)));
    // RFC 7636 appendix B test vector.
    expect(pkceChallengeS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('carries the SHA-256 of the flow binding; only that binding matches, and a state without one is refused', () => {
    expect(fromBase64Url(binding)).toHaveLength(32);
    expect(flowBindingMatches(payload, binding)).toBe(true);
    for (const other of [newFlowBinding(), '', undefined, `${binding}x`, binding.slice(1)])
      expect(flowBindingMatches(payload, other)).toBe(false);
    const { bindingHash: _dropped, ...unbound } = payload;
    const at = { providerId: 'acme', nowMs: NOW };
    expect(verifyOAuthState(KEY, signOAuthState(KEY, unbound as typeof payload), at)).toEqual({
      ok: false,
      reason: 'payload',
    });
    expect(verifyOAuthState(KEY, signOAuthState(KEY, { ...payload, bindingHash: '' }), at)).toEqual({
      ok: false,
      reason: 'payload',
    });
  });
});
