/**
 * The provider JWKS behind native ID-token sign-in: fetched once and cached;
 * a token naming an unknown `kid` (a key rotation) refetches it once, and a
 * flood of unknown kids does not make the API hammer the provider (one
 * refetch per 30 s). The JWKS is the real test provider's, served through a
 * counting relay configured as the provider's `jwksUri`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { issueIdToken, newRawNonce } from '../../helpers/id-token.js';
import { makeOAuthApi, PROVIDER_REDIRECTS, providerConfig } from '../../helpers/oauth.js';
import { startOidcProvider, type TestOidcProvider } from '../../helpers/oidc-provider.js';

let op: TestOidcProvider;
let relay: Server;
let relayUrl = '';
let fetches = 0;
const published: JWK[] = [];

beforeAll(async () => {
  op = await startOidcProvider({ redirectUris: PROVIDER_REDIRECTS, idTokenClaims: true });
  op.setAccount('jwks-user', { email: 'jwks.user@example.com', email_verified: true });
  const discovery = (await (await fetch(`${op.issuer}/.well-known/openid-configuration`)).json()) as {
    jwks_uri: string;
  };
  relay = createServer((_req, res) => {
    fetches++;
    void fetch(discovery.jwks_uri)
      .then((r) => r.json() as Promise<{ keys: JWK[] }>)
      .then((jwks) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ keys: [...jwks.keys, ...published] }));
      });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}/jwks`;
});
afterAll(async () => {
  await op?.close();
  relay?.closeAllConnections();
  await new Promise((resolve) => relay?.close(resolve));
});
afterEach(() => {
  vi.useRealTimers();
});

/** A token with a real token's claims, signed by a key the provider publishes only later (a rotation). */
async function rotatedKeyToken(kid: string) {
  const nonce = newRawNonce();
  const claims = decodeJwt(await issueIdToken(op, { accountId: 'jwks-user', nonce }));
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const idToken = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey);
  return { idToken, nonce, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

describe('provider JWKS for ID-token sign-in', () => {
  it('is fetched once, refetched once for a rotated key, and not refetched for every unknown kid', async () => {
    const t = await makeOAuthApi(op, { providers: [providerConfig(op, { issuer: op.issuer, jwksUri: relayUrl })] });
    const signIn = (body: unknown) => t.call('POST', '/oauth/testop/id-token', { body });

    for (let i = 0; i < 3; i++) {
      const nonce = newRawNonce();
      expect((await signIn({ idToken: await issueIdToken(op, { accountId: 'jwks-user', nonce }), nonce })).status).toBe(
        200,
      );
    }
    expect(fetches).toBe(1);

    // The provider rotates: a token signed with a key the cached JWKS does not have.
    const rotated = await rotatedKeyToken('rotated-2');
    published.push(rotated.publicJwk);
    const early = await signIn({ idToken: rotated.idToken, nonce: rotated.nonce });
    expect(early.status).toBe(401); // inside the 30 s cooldown: no refetch, the kid stays unknown
    expect(fetches).toBe(1);

    // jose measures its cooldown with Date.now(): move only the wall clock past it.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 31_000);
    const after = await signIn({ idToken: rotated.idToken, nonce: rotated.nonce });
    expect(after.status).toBe(200);
    expect(after.body.email).toBe('jwks.user@example.com');
    expect(fetches).toBe(2);

    // A flood of unknown kids right after costs no further fetch.
    for (let i = 0; i < 3; i++) {
      const unknown = await rotatedKeyToken(`never-published-${i}`);
      const res = await signIn({ idToken: unknown.idToken, nonce: unknown.nonce });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('id_token_invalid');
    }
    expect(fetches).toBe(2);
  });

  it('answers 400 oauth_login_failed, never a 500, when the provider cannot be reached', async () => {
    // A port that was just free: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const dead = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const nonce = newRawNonce();
    const idToken = await issueIdToken(op, { accountId: 'jwks-user', nonce });
    for (const over of [{ issuer: dead }, { issuer: op.issuer, jwksUri: `${dead}/jwks` }]) {
      const t = await makeOAuthApi(op, { providers: [providerConfig(op, over)] });
      const res = await t.call('POST', '/oauth/testop/id-token', { body: { idToken, nonce } });
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(res.body).toEqual({ error: 'oauth_login_failed', message: 'OAuth login failed' });
    }
  });
});
