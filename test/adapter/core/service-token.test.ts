/**
 * Adapter service tokens (contract §1.5): exact header and claims, the 45 s
 * reuse of the proxy token, a fresh delivery token per call, and acceptance by
 * the API's own verifier (and refusal with another secret).
 */
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { createServiceTokens, DELIVERY_SUBJECT, PROXY_TOKEN_REUSE_MS } from '../../../adapter/core/service-token.js';
import { createServiceTokenVerifier } from '../../../src/crypto/service-token.js';

const SECRET = 'service-secret-for-the-unit-test-0123456789';
const T0 = Date.UTC(2026, 0, 31, 12, 0, 0);
const jwt = (header: string) => header.replace(/^Bearer /, '');

describe('adapter service tokens', () => {
  it('carries exactly the contract header and claims, and nothing else', () => {
    const tokens = createServiceTokens(SECRET, 'kid-7', 'svc-hono-adapter');
    const proxy = tokens.proxy(T0);
    expect(proxy).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(decodeProtectedHeader(jwt(proxy))).toEqual({ alg: 'HS256', typ: 'JWT', kid: 'kid-7' });
    const iat = Math.floor(T0 / 1000);
    expect(decodeJwt(jwt(proxy))).toEqual({
      iss: 'svc-adapter',
      aud: 'svc-auth-api',
      sub: 'svc-hono-adapter',
      iat,
      exp: iat + 60,
    });
    expect(decodeJwt(jwt(tokens.delivery(T0)))).toEqual({
      iss: 'svc-adapter',
      aud: 'svc-auth-api',
      sub: DELIVERY_SUBJECT,
      iat,
      exp: iat + 60,
    });
  });

  it('reuses the proxy token for 45 s, then mints a new one; a delivery token is minted for every call', () => {
    const tokens = createServiceTokens(SECRET, 'dev-main', 'svc-express-adapter');
    const first = tokens.proxy(T0);
    expect(tokens.proxy(T0 + PROXY_TOKEN_REUSE_MS - 1)).toBe(first);
    const next = tokens.proxy(T0 + PROXY_TOKEN_REUSE_MS);
    expect(next).not.toBe(first);
    expect(decodeJwt(jwt(next)).sub).toBe('svc-express-adapter');
    expect(PROXY_TOKEN_REUSE_MS).toBe(45_000);
    // A clock that goes backwards never reuses a token from the future.
    expect(tokens.proxy(T0)).not.toBe(next);
    expect(tokens.delivery(T0 + 1000)).not.toBe(tokens.delivery(T0 + 2000));
  });

  it('is accepted by the API verifier with the same secret and refused with another or once expired', async () => {
    const tokens = createServiceTokens(SECRET, 'dev-main', 'svc-hono-adapter');
    const verify = createServiceTokenVerifier(SECRET);
    expect(await verify(tokens.proxy(T0), T0 + 1000)).toEqual({ ok: true, sub: 'svc-hono-adapter' });
    expect(await verify(tokens.delivery(T0), T0 + 1000)).toEqual({ ok: true, sub: DELIVERY_SUBJECT });
    expect((await createServiceTokenVerifier(`${SECRET}-other`)(tokens.proxy(T0), T0)).ok).toBe(false);
    expect((await verify(tokens.proxy(T0), T0 + 60_000 + 31_000)).ok).toBe(false);
  });
});
