/**
 * Native ID-token sign-in (`POST /oauth/:providerId/id-token`, contract
 * §3.13) against the real OpenID provider issuing real ID tokens: a valid
 * token signs in (session envelope, same identity as the redirect flow, MFA
 * step for a TOTP user); every way a token can be wrong answers 401 with its
 * stable code and no session; bad input is a 400/401 envelope, never a 500.
 */
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueIdToken, newRawNonce, sha256B64Url, sha256Hex, signingJwks } from '../../helpers/id-token.js';
import { makeOAuthApi, oauthRoundTrip, PROVIDER_REDIRECTS, providerConfig } from '../../helpers/oauth.js';
import { startOidcProvider, type TestOidcProvider } from '../../helpers/oidc-provider.js';
import { codeAt, enrollTotp, STEP_MS } from '../../helpers/totp.js';
import type { TestApi } from '../../helpers/make-app.js';

const NATIVE_APP = 'com.example.ios';
const STRANGER_APP = 'com.stranger.app';
let op: TestOidcProvider;
let foreign: TestOidcProvider;

beforeAll(async () => {
  const jwks = await signingJwks('op-key-1');
  const clients = [
    { clientId: NATIVE_APP, clientSecret: 'native-app-secret-0123456789abcdef' },
    { clientId: STRANGER_APP, clientSecret: 'stranger-secret-0123456789abcdef' },
  ];
  op = await startOidcProvider({ redirectUris: PROVIDER_REDIRECTS, extraClients: clients, jwks, idTokenClaims: true });
  // Another issuer signing with the very same keys: only the `iss` check tells its tokens apart.
  foreign = await startOidcProvider({
    redirectUris: PROVIDER_REDIRECTS,
    extraClients: clients,
    jwks,
    idTokenClaims: true,
  });
});
afterAll(async () => {
  await op?.close();
  await foreign?.close();
});

const api = (over: Record<string, unknown> = {}) =>
  makeOAuthApi(op, { providers: [providerConfig(op, { issuer: op.issuer, nativeClientIds: [NATIVE_APP], ...over })] });

let n = 0;
function account(email = `native${++n}.${Math.random().toString(36).slice(2, 8)}@example.com`) {
  const id = `acct-native-${n}-${Math.random().toString(36).slice(2, 8)}`;
  op.setAccount(id, { email, email_verified: true, name: 'Native User' });
  foreign.setAccount(id, { email, email_verified: true });
  return { id, email };
}

const signIn = (t: TestApi, body: unknown, providerId = 'testop') =>
  t.call('POST', `/oauth/${providerId}/id-token`, { body });

async function failedReasons(t: TestApi): Promise<string[]> {
  const rows = await t.client.execute(
    "SELECT metadata FROM auth_events WHERE type = 'oauth_login_failed' ORDER BY created_at",
  );
  return rows.rows.map((r) => JSON.parse(String(r.metadata)).reason);
}

describe('POST /oauth/:providerId/id-token — valid tokens', () => {
  it('signs in with a token carrying the raw nonce (Google style) and the session works', async () => {
    const t = await api();
    const a = account();
    const nonce = newRawNonce();
    const idToken = await issueIdToken(op, { accountId: a.id, nonce });
    const res = await signIn(t, { idToken, nonce });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      message: 'Success',
      email: a.email,
      token: expect.any(String),
      refreshToken: expect.any(String),
      ttl: 900,
    });
    const me = await t.call('GET', '/users/me', { token: res.body.token });
    expect(me.status).toBe(200);
    expect(me.body.user ?? me.body).toMatchObject({ email: a.email });
  });

  it.each([
    ['SHA-256 hex (Sign in with Apple)', sha256Hex],
    ['SHA-256 base64url', sha256B64Url],
  ])('accepts a token whose nonce is the %s of the raw nonce the app sends', async (_name, hash) => {
    const t = await api();
    const a = account();
    const nonce = newRawNonce();
    const idToken = await issueIdToken(op, { accountId: a.id, nonce: hash(nonce) });
    const res = await signIn(t, { idToken, nonce });
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(a.email);
  });

  it('accepts a native app client id listed in nativeClientIds', async () => {
    const t = await api();
    const a = account();
    const nonce = newRawNonce();
    const idToken = await issueIdToken(op, {
      accountId: a.id,
      nonce,
      clientId: NATIVE_APP,
      clientSecret: 'native-app-secret-0123456789abcdef',
    });
    expect(decodeJwt(idToken).aud).toBe(NATIVE_APP);
    expect((await signIn(t, { idToken, nonce })).status).toBe(200);
  });

  it('finds the same account as the redirect flow (same provider identity)', async () => {
    const t = await api();
    const a = account();
    const web = await oauthRoundTrip(t, op, a.id);
    expect(web.callback.status).toBe(200);
    const nonce = newRawNonce();
    const res = await signIn(t, { idToken: await issueIdToken(op, { accountId: a.id, nonce }), nonce });
    expect(res.status).toBe(200);
    expect(res.body.sub).toBe(web.callback.body.sub);
    const identities = await t.client.execute('SELECT COUNT(*) AS n FROM oauth_identities');
    expect(Number(identities.rows[0]!.n)).toBe(1);
  });

  it('answers the MFA step for a user with TOTP, never a session', async () => {
    const t = await api();
    const a = account();
    let nonce = newRawNonce();
    const first = await signIn(t, { idToken: await issueIdToken(op, { accountId: a.id, nonce }), nonce });
    const secret = await enrollTotp(t, first.body.token);
    t.clock.advance(STEP_MS);
    nonce = newRawNonce();
    const second = await signIn(t, { idToken: await issueIdToken(op, { accountId: a.id, nonce }), nonce });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({
      message: 'MFA required',
      mfaRequired: true,
      mfaMethods: ['totp'],
      sub: first.body.sub,
      token: expect.any(String),
      ttl: 300,
    });
    const done = await t.call('POST', '/totp/verify-login', {
      token: second.body.token,
      body: { code: codeAt(secret, t.clock.now()) },
    });
    expect(done.status).toBe(200);
    expect(done.body.sub).toBe(first.body.sub);
  });

  it('follows the linking rules: accountLinking "disabled" refuses a token for an existing email', async () => {
    const t = await api({ accountLinking: 'disabled' });
    const a = account();
    let nonce = newRawNonce();
    expect((await signIn(t, { idToken: await issueIdToken(op, { accountId: a.id, nonce }), nonce })).status).toBe(200);
    const other = account(a.email); // a second provider account with the same email
    nonce = newRawNonce();
    const res = await signIn(t, { idToken: await issueIdToken(op, { accountId: other.id, nonce }), nonce });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('oauth_signup_disabled');
  });
});

describe('POST /oauth/:providerId/id-token — refused tokens (401, no session)', () => {
  it('refuses a token for another app (wrong audience)', async () => {
    const t = await api();
    const a = account();
    const nonce = newRawNonce();
    const idToken = await issueIdToken(op, {
      accountId: a.id,
      nonce,
      clientId: STRANGER_APP,
      clientSecret: 'stranger-secret-0123456789abcdef',
    });
    const res = await signIn(t, { idToken, nonce });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'id_token_invalid', message: 'Invalid ID token' });
    expect(await failedReasons(t)).toEqual(['token_audience']);
  });

  it('refuses an expired token (past exp plus the 30 s skew)', async () => {
    const t = await api();
    const a = account();
    const nonce = newRawNonce();
    const idToken = await issueIdToken(op, { accountId: a.id, nonce });
    t.clock.set((decodeJwt(idToken).exp! + 31) * 1000);
    const res = await signIn(t, { idToken, nonce });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('id_token_invalid');
    expect(await failedReasons(t)).toEqual(['token_expired']);
  });

  it('refuses a token issued in the future (iat past the 30 s skew, e.g. a server clock behind)', async () => {
    const t = await api();
    const a = account();
    const nonce = newRawNonce();
    const idToken = await issueIdToken(op, { accountId: a.id, nonce });
    t.clock.set((decodeJwt(idToken).iat! - 31) * 1000);
    const res = await signIn(t, { idToken, nonce });
    expect(res.status).toBe(401);
    expect(await failedReasons(t)).toEqual(['token_not_yet_valid']);
    t.clock.set((decodeJwt(idToken).iat! - 29) * 1000); // inside the skew
    expect((await signIn(t, { idToken, nonce })).status).toBe(200);
  });

  it('refuses a token whose nonce is not the raw nonce sent (or its digest)', async () => {
    const t = await api();
    const a = account();
    const idToken = await issueIdToken(op, { accountId: a.id, nonce: newRawNonce() });
    const res = await signIn(t, { idToken, nonce: newRawNonce() });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'id_token_nonce_mismatch', message: 'ID token nonce does not match' });
  });

  it('spends a nonce once, across API instances sharing the database', async () => {
    const t = await api();
    const other = await makeOAuthApi(op, { client: t.client, providers: [providerConfig(op, { issuer: op.issuer })] });
    const a = account();
    const nonce = newRawNonce();
    const idToken = await issueIdToken(op, { accountId: a.id, nonce });
    expect((await signIn(t, { idToken, nonce })).status).toBe(200);
    const replay = await signIn(other, { idToken, nonce });
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ error: 'id_token_replayed', message: 'ID token nonce was already used' });
    expect((await signIn(t, { idToken, nonce })).body.error).toBe('id_token_replayed');
  });

  it('refuses a token of a foreign issuer, even signed with the same keys', async () => {
    const t = await api();
    const a = account();
    const nonce = newRawNonce();
    const idToken = await issueIdToken(foreign, { accountId: a.id, nonce });
    expect(decodeProtectedHeader(idToken).kid).toBe('op-key-1');
    const res = await signIn(t, { idToken, nonce });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('id_token_invalid');
    expect(await failedReasons(t)).toEqual(['token_issuer']);
  });

  it('refuses alg "none" with the claims of a valid token', async () => {
    const t = await api();
    const a = account();
    const nonce = newRawNonce();
    const claims = decodeJwt(await issueIdToken(op, { accountId: a.id, nonce }));
    const res = await signIn(t, { idToken: new UnsecuredJWT(claims).encode(), nonce });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('id_token_invalid');
    expect(await failedReasons(t)).toEqual(['token_alg_not_allowed']);
  });

  it('refuses a token signed by a key the provider does not publish', async () => {
    const t = await api();
    const a = account();
    const nonce = newRawNonce();
    const claims = decodeJwt(await issueIdToken(op, { accountId: a.id, nonce }));
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'not-published' })
      .sign(privateKey);
    const res = await signIn(t, { idToken: forged, nonce });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('id_token_invalid');
    expect(await failedReasons(t)).toEqual(['token_unknown_key']);
  });

  it('refuses a token signed by another key under the published kid (bad signature)', async () => {
    const t = await api();
    const a = account();
    const nonce = newRawNonce();
    const claims = decodeJwt(await issueIdToken(op, { accountId: a.id, nonce }));
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    expect((await exportJWK(privateKey)).kty).toBe('RSA');
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'op-key-1' }).sign(privateKey);
    const res = await signIn(t, { idToken: forged, nonce });
    expect(res.status).toBe(401);
    expect(await failedReasons(t)).toEqual(['token_signature']);
  });
});

describe('POST /oauth/:providerId/id-token — bad input', () => {
  it('answers a string that is not a JWT with 401 id_token_invalid', async () => {
    const t = await api();
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const hs256 = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: 'HS256', kid: 'op-key-1' })
      .sign(new TextEncoder().encode('k'.repeat(32)));
    const malformed = [
      'not-a-jwt',
      'a.b.c',
      'eyJhbGciOiJSUzI1NiJ9.e30.',
      '...',
      `${b64({ alg: 'RS256', kid: 123 })}.${b64({ sub: 1 })}.c2ln`,
      `${b64({ alg: 'RSA-OAEP', enc: 'A256GCM' })}.a.b.c.d`, // a JWE
      `${b64('str')}.${b64([])}.x`,
      hs256, // symmetric alg with the provider's kid
    ];
    for (const idToken of malformed) {
      const res = await signIn(t, { idToken, nonce: newRawNonce() });
      expect(res.status, idToken).toBe(401);
      expect(res.body.error, idToken).toBe('id_token_invalid');
    }
  });

  it('answers an oversize token, a missing or short nonce and wrong types with 400 invalid_request', async () => {
    const t = await api();
    for (const body of [
      { idToken: 'x'.repeat(16_385), nonce: newRawNonce() },
      { idToken: 'a.b.c' },
      { idToken: 'a.b.c', nonce: 'short' },
      { idToken: 42, nonce: newRawNonce() },
      [],
    ]) {
      const res = await signIn(t, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    }
  });

  it('answers 404 for a provider without an issuer, and for an unknown provider', async () => {
    const t = await makeOAuthApi(op);
    const nonce = newRawNonce();
    const idToken = await issueIdToken(op, { accountId: account().id, nonce });
    expect((await signIn(t, { idToken, nonce })).body.error).toBe('oauth_provider_not_found');
    expect((await signIn(t, { idToken, nonce }, 'nope')).status).toBe(404);
  });
});
