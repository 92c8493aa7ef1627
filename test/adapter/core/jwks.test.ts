/**
 * JWKS verification of the API's RS256 tokens (contract §1.7, §5.9): the key set
 * is cached for 300 s, an unknown `kid` triggers one refetch (at most every
 * 30 s, shared by concurrent callers), and a failed refetch keeps the cached
 * keys. The key set is a real JWKS document served by a counting `fetch`.
 */
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createJwksVerifier, JWKS_CACHE_MS, JWKS_REFETCH_COOLDOWN_MS } from '../../../adapter/core/jwks.js';

const AUD = 'http://auth.test';
const URL_JWKS = `${AUD}/.well-known/jwks.json`;
const T0 = Date.UTC(2026, 0, 31, 12, 0, 0);

type Pair = Awaited<ReturnType<typeof generateKeyPair>>;
let k1: Pair;
let k2: Pair;

beforeAll(async () => {
  [k1, k2] = await Promise.all([
    generateKeyPair('RS256', { extractable: true }),
    generateKeyPair('RS256', { extractable: true }),
  ]);
});

const publicJwk = async (pair: Pair, kid: string): Promise<JWK> => ({
  ...(await exportJWK(pair.publicKey)),
  kid,
  alg: 'RS256',
  use: 'sig',
});

/** A JWKS endpoint whose published keys the test changes, counting fetches. */
function jwksServer() {
  const state = { keys: [] as JWK[], fetches: 0, down: false };
  const fetch = async (input: string) => {
    expect(input).toBe(URL_JWKS);
    state.fetches++;
    await new Promise((r) => setTimeout(r, 2)); // long enough for concurrent callers to pile up
    if (state.down) throw new TypeError('fetch failed');
    return new Response(JSON.stringify({ keys: state.keys }), { headers: { 'content-type': 'application/json' } });
  };
  return { state, fetch };
}

function setup() {
  const server = jwksServer();
  let nowMs = T0;
  const verifier = createJwksVerifier({ authServerUrl: AUD, audience: AUD, fetch: server.fetch, now: () => nowMs });
  return { ...server, verifier, advance: (ms: number) => (nowMs += ms), now: () => nowMs };
}

const sign = (pair: Pair, kid: string, nowMs: number) =>
  new SignJWT({ typ: 'access', sid: 's1' })
    .setProtectedHeader({ alg: 'RS256', kid })
    .setSubject('u1')
    .setIssuer(AUD)
    .setAudience(AUD)
    .setIssuedAt(Math.floor(nowMs / 1000))
    .setExpirationTime(Math.floor(nowMs / 1000) + 3600)
    .sign(pair.privateKey);

describe('JWKS verifier: caching', () => {
  it('fetches the key set once and serves every verification from the cache for 300 s', async () => {
    const s = setup();
    s.state.keys = [await publicJwk(k1, 'k1')];
    const token = await sign(k1, 'k1', s.now());
    const results = await Promise.all(Array.from({ length: 20 }, () => s.verifier.verify(token)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(s.state.fetches).toBe(1);
    s.advance(JWKS_CACHE_MS - 1);
    expect((await s.verifier.verify(token)).ok).toBe(true);
    expect(s.state.fetches).toBe(1);
    // After 300 s the set is fetched again; a key removed from the set stops verifying.
    s.state.keys = [await publicJwk(k2, 'k2')];
    s.advance(1);
    expect(await s.verifier.verify(token)).toEqual({ ok: false, error: 'invalid' });
    expect(s.state.fetches).toBe(2);
  });

  it('keeps the cached keys when a scheduled refetch fails', async () => {
    const s = setup();
    s.state.keys = [await publicJwk(k1, 'k1')];
    const token = await sign(k1, 'k1', s.now());
    expect((await s.verifier.verify(token)).ok).toBe(true);
    s.state.down = true;
    s.advance(JWKS_CACHE_MS + 1);
    expect((await s.verifier.verify(token)).ok).toBe(true);
    expect(s.state.fetches).toBe(2);
  });

  it('answers unavailable (not invalid) when the key set was never fetched', async () => {
    const s = setup();
    s.state.down = true;
    expect(await s.verifier.verify(await sign(k1, 'k1', s.now()))).toEqual({ ok: false, error: 'unavailable' });
  });
});

describe('JWKS verifier: unknown kid', () => {
  it('refetches once when a new kid appears after a key rotation, and then verifies it', async () => {
    const s = setup();
    s.state.keys = [await publicJwk(k1, 'k1')];
    expect((await s.verifier.verify(await sign(k1, 'k1', s.now()))).ok).toBe(true);
    expect(s.state.fetches).toBe(1);

    // The API rotates: k2 is now published next to k1.
    s.state.keys = [await publicJwk(k1, 'k1'), await publicJwk(k2, 'k2')];
    s.advance(JWKS_REFETCH_COOLDOWN_MS);
    const rotated = await sign(k2, 'k2', s.now());
    const results = await Promise.all(Array.from({ length: 10 }, () => s.verifier.verify(rotated)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(s.state.fetches).toBe(2); // one refetch, shared by the concurrent callers
    expect((await s.verifier.verify(rotated)).ok).toBe(true);
    expect(s.state.fetches).toBe(2);
  });

  it('refetches at most once per 30 s for kids that stay unknown (a forged kid cannot hammer the API)', async () => {
    const s = setup();
    s.state.keys = [await publicJwk(k1, 'k1')];
    expect((await s.verifier.verify(await sign(k1, 'k1', s.now()))).ok).toBe(true);
    const forged = await sign(k2, 'nobody', s.now());
    // Within the cooldown of the first fetch: no refetch at all.
    for (let i = 0; i < 5; i++) expect(await s.verifier.verify(forged)).toEqual({ ok: false, error: 'invalid' });
    expect(s.state.fetches).toBe(1);
    // After the cooldown: exactly one refetch, then quiet again for 30 s.
    s.advance(JWKS_REFETCH_COOLDOWN_MS);
    for (let i = 0; i < 5; i++) expect(await s.verifier.verify(forged)).toEqual({ ok: false, error: 'invalid' });
    expect(s.state.fetches).toBe(2);
    s.advance(JWKS_REFETCH_COOLDOWN_MS - 1);
    expect((await s.verifier.verify(forged)).ok).toBe(false);
    expect(s.state.fetches).toBe(2);
    s.advance(1);
    expect((await s.verifier.verify(forged)).ok).toBe(false);
    expect(s.state.fetches).toBe(3);
  });

  it('does not accept a token whose kid names a published key but whose signature is another key’s', async () => {
    const s = setup();
    s.state.keys = [await publicJwk(k1, 'k1')];
    expect(await s.verifier.verify(await sign(k2, 'k1', s.now()))).toEqual({ ok: false, error: 'invalid' });
  });

  it('ignores published keys that are not RS256 signing keys', async () => {
    const s = setup();
    s.state.keys = [
      { ...(await publicJwk(k1, 'k1')), use: 'enc' },
      { ...(await publicJwk(k2, 'k2')), alg: 'RS512' },
    ];
    expect(await s.verifier.verify(await sign(k1, 'k1', s.now()))).toEqual({ ok: false, error: 'invalid' });
    expect(await s.verifier.verify(await sign(k2, 'k2', s.now()))).toEqual({ ok: false, error: 'invalid' });
  });
});
