/**
 * Verification of the API's RS256 tokens (contract §1.7): the JWKS is fetched
 * from `<authServerUrl>/.well-known/jwks.json` through the injected `fetch`,
 * cached 300 s, and refetched once on an unknown `kid` (at most every 30 s).
 * Verification pins RS256, `iss` = `aud` = `audience` and allows 30 s skew,
 * so `alg:none`, HS256 confusion and foreign keys are refused.
 */
import { importJWK, jwtVerify, decodeProtectedHeader, type JWK, type JWTPayload } from 'jose';
import type { FetchLike } from './options.js';
import { err, ok, type Result } from './result.js';

export const JWKS_CACHE_MS = 300_000;
export const JWKS_REFETCH_COOLDOWN_MS = 30_000;
export const JWT_SKEW_SECONDS = 30;

export type JwksFailure = 'invalid' | 'unavailable';

export interface JwksVerifier {
  /** Verifies signature, alg, iss, aud and exp; the caller checks `typ`, `sub`, `sid`, `ctx`. */
  verify(token: string): Promise<Result<JWTPayload, JwksFailure>>;
}

type KeyMap = Map<string, CryptoKey>;

export function createJwksVerifier(opts: {
  authServerUrl: string;
  audience: string;
  fetch: FetchLike;
  now: () => number;
}): JwksVerifier {
  const url = `${opts.authServerUrl}/.well-known/jwks.json`;
  let keys: KeyMap | null = null;
  let fetchedAtMs = -Infinity;
  let inflight: Promise<KeyMap | null> | null = null;

  async function load(): Promise<KeyMap | null> {
    try {
      const res = await opts.fetch(url, { method: 'GET', signal: AbortSignal.timeout(10_000) });
      if (!res.ok) return null;
      const doc = (await res.json()) as { keys?: JWK[] };
      const map: KeyMap = new Map();
      for (const jwk of doc.keys ?? []) {
        if (jwk.kty !== 'RSA' || !jwk.kid || (jwk.alg && jwk.alg !== 'RS256') || (jwk.use && jwk.use !== 'sig'))
          continue;
        map.set(jwk.kid, (await importJWK({ ...jwk, alg: 'RS256' }, 'RS256')) as CryptoKey);
      }
      keys = map;
      fetchedAtMs = opts.now();
      return map;
    } catch {
      return null;
    }
  }

  /** One fetch at a time; concurrent callers share it. */
  function refetch(): Promise<KeyMap | null> {
    inflight ??= load().finally(() => {
      inflight = null;
    });
    return inflight;
  }

  async function keyFor(kid: string): Promise<CryptoKey | 'unknown' | 'unavailable'> {
    const nowMs = opts.now();
    if (!keys || nowMs - fetchedAtMs >= JWKS_CACHE_MS) {
      const fresh = await refetch();
      if (!fresh && !keys) return 'unavailable';
    }
    const known = keys!.get(kid);
    if (known) return known;
    if (nowMs - fetchedAtMs < JWKS_REFETCH_COOLDOWN_MS) return 'unknown';
    const fresh = await refetch();
    if (!fresh) return 'unavailable';
    return fresh.get(kid) ?? 'unknown';
  }

  return {
    async verify(token) {
      let kid: unknown;
      try {
        const header = decodeProtectedHeader(token);
        if (header.alg !== 'RS256') return err('invalid');
        kid = header.kid;
      } catch {
        return err('invalid');
      }
      if (typeof kid !== 'string' || !kid) return err('invalid');
      const key = await keyFor(kid);
      if (key === 'unavailable') return err('unavailable');
      if (key === 'unknown') return err('invalid');
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['RS256'],
          issuer: [opts.audience, `${opts.audience}/`],
          audience: [opts.audience, `${opts.audience}/`],
          clockTolerance: JWT_SKEW_SECONDS,
          currentDate: new Date(opts.now()),
          requiredClaims: ['exp', 'sub', 'iat'],
        });
        // jose accepts an aud array containing ours and an iat in the future (without maxTokenAge): svc issues neither.
        // Every svc token carries a numeric iat and the API refuses one without: so does the adapter.
        if (typeof payload.aud !== 'string') return err('invalid');
        if (typeof payload.iat !== 'number' || payload.iat > Math.floor(opts.now() / 1000) + JWT_SKEW_SECONDS)
          return err('invalid');
        return ok(payload);
      } catch {
        return err('invalid');
      }
    },
  };
}
