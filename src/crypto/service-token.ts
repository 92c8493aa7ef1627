/**
 * Service-token check on the API side (contract §1.5). A valid token only
 * unlocks the trusted client IP/UA and delivery payloads; it is never a route credential.
 */
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { utf8 } from './encoding.js';

export const SERVICE_TOKEN_ISSUER = 'svc-adapter';
export const SERVICE_TOKEN_AUDIENCE = 'svc-auth-api';
export const SERVICE_TOKEN_MAX_TTL_SECONDS = 60;

export type ServiceTokenResult = { ok: true; sub: string } | { ok: false; reason: string };

export function createServiceTokenVerifier(secret: string) {
  const key = utf8(secret);
  return async function verifyServiceToken(headerValue: string, nowMs: number): Promise<ServiceTokenResult> {
    const token = headerValue.replace(/^Bearer\s+/i, '').trim();
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    if (alg !== 'HS256') return { ok: false, reason: 'alg' };
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['HS256'],
        issuer: SERVICE_TOKEN_ISSUER,
        audience: SERVICE_TOKEN_AUDIENCE,
        currentDate: new Date(nowMs),
        clockTolerance: 30,
        requiredClaims: ['sub', 'iat', 'exp'],
      });
      if (typeof payload.sub !== 'string' || payload.sub === '') return { ok: false, reason: 'sub' };
      if (payload.exp! - payload.iat! > SERVICE_TOKEN_MAX_TTL_SECONDS) return { ok: false, reason: 'lifetime' };
      return { ok: true, sub: payload.sub };
    } catch {
      return { ok: false, reason: 'invalid' };
    }
  };
}
