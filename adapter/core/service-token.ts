/**
 * Service tokens (contract §1.5): HS256 with `serviceSecret`, `iss`
 * `svc-adapter`, `aud` `svc-auth-api`, a fixed `sub`, 60 s lifetime, nothing
 * else. The proxy token is reused for 45 s; a delivery token is minted per call.
 */
import { utf8 } from '../../common/encoding.js';
import { signHs256 } from './hs256.js';

export const SERVICE_TOKEN_TTL_SECONDS = 60;
export const PROXY_TOKEN_REUSE_MS = 45_000;
export const DELIVERY_SUBJECT = 'svc-external-delivery';

export type AdapterSubject = 'svc-hono-adapter' | 'svc-express-adapter';

export interface ServiceTokens {
  /** `Bearer <jwt>` for proxied calls (cached 45 s). */
  proxy(nowMs: number): string;
  /** `Bearer <jwt>` for calls that request delivery payloads (fresh each call). */
  delivery(nowMs: number): string;
}

/**
 * @example
 * const tokens = createServiceTokens(serviceSecret, 'dev-main', 'svc-hono-adapter');
 * headers.set('x-svc-service-token', tokens.proxy(Date.now()));
 */
export function createServiceTokens(secret: string, kid: string, subject: AdapterSubject): ServiceTokens {
  const key = utf8(secret);
  const mint = (sub: string, nowMs: number) => {
    const iat = Math.floor(nowMs / 1000);
    return `Bearer ${signHs256(key, { iss: 'svc-adapter', aud: 'svc-auth-api', sub, iat, exp: iat + SERVICE_TOKEN_TTL_SECONDS }, { kid })}`;
  };
  let cached: { value: string; mintedAtMs: number } | null = null;
  return {
    proxy(nowMs) {
      if (!cached || nowMs - cached.mintedAtMs >= PROXY_TOKEN_REUSE_MS || nowMs < cached.mintedAtMs)
        cached = { value: mint(subject, nowMs), mintedAtMs: nowMs };
      return cached.value;
    },
    delivery: (nowMs) => mint(DELIVERY_SUBJECT, nowMs),
  };
}
