/**
 * Security rules of native ID-token sign-in beyond the basic refusals: the
 * authorized party of a multi-audience token, a nonce spent only by a token
 * that proves it, the nonce stored as a digest, and the linking rule that a
 * local account is claimed only with a verified email. Tokens with unusual
 * claim shapes are signed with the test provider's own private key (the one
 * its JWKS publishes), so only the rule under test can refuse them.
 */
import { decodeJwt, importJWK, SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../helpers/factories.js';
import { issueIdToken, newRawNonce, signingJwks } from '../../helpers/id-token.js';
import { makeOAuthApi, PROVIDER_REDIRECTS, providerConfig } from '../../helpers/oauth.js';
import { startOidcProvider, type TestOidcProvider } from '../../helpers/oidc-provider.js';
import type { TestApi } from '../../helpers/make-app.js';

const NATIVE_APP = 'com.example.android';
let op: TestOidcProvider;
let jwks: Awaited<ReturnType<typeof signingJwks>>;

beforeAll(async () => {
  jwks = await signingJwks('op-sec-key');
  op = await startOidcProvider({ redirectUris: PROVIDER_REDIRECTS, jwks, idTokenClaims: true });
  op.setAccount('sec-user', { email: 'sec.user@example.com', email_verified: true });
  op.setAccount('unverified-user', { email: 'taken@example.com', email_verified: false });
});
afterAll(async () => {
  await op?.close();
});

const api = () =>
  makeOAuthApi(op, { providers: [providerConfig(op, { issuer: op.issuer, nativeClientIds: [NATIVE_APP] })] });
const signIn = (t: TestApi, body: unknown) => t.call('POST', '/oauth/testop/id-token', { body });

/** A real token's claims with `over` applied, signed with the provider's published key. */
async function providerSigned(over: JWTPayload) {
  const nonce = newRawNonce();
  const claims = decodeJwt(await issueIdToken(op, { accountId: 'sec-user', nonce }));
  const key = await importJWK(jwks.keys[0]!, 'RS256');
  const idToken = await new SignJWT({ ...claims, ...over })
    .setProtectedHeader({ alg: 'RS256', kid: 'op-sec-key' })
    .sign(key);
  return { idToken, nonce };
}

describe('ID-token sign-in: security rules', () => {
  it('signs in a token re-signed with the provider key unchanged (the control for the cases below)', async () => {
    const t = await api();
    expect((await signIn(t, await providerSigned({}))).status).toBe(200);
  });

  it('requires azp to be one of ours when aud lists several audiences', async () => {
    const t = await api();
    const noAzp = await providerSigned({ aud: [op.clientId, 'someone-else'], azp: undefined });
    expect((await signIn(t, noAzp)).body.error).toBe('id_token_invalid');
    const foreignAzp = await providerSigned({ aud: [op.clientId, 'someone-else'], azp: 'someone-else' });
    expect((await signIn(t, foreignAzp)).body.error).toBe('id_token_invalid');
    const ours = await providerSigned({ aud: ['someone-else', NATIVE_APP], azp: NATIVE_APP });
    expect((await signIn(t, ours)).status).toBe(200);
  });

  it('refuses a token without a nonce claim', async () => {
    const t = await api();
    const res = await signIn(t, await providerSigned({ nonce: undefined }));
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('id_token_nonce_mismatch');
  });

  it('spends a nonce only for a token that proves it: a refused token cannot burn it', async () => {
    const t = await api();
    const good = await providerSigned({});
    const forged = await providerSigned({ aud: 'another-app' });
    expect((await signIn(t, { idToken: forged.idToken, nonce: good.nonce })).status).toBe(401);
    expect((await signIn(t, { idToken: (await providerSigned({})).idToken, nonce: good.nonce })).body.error).toBe(
      'id_token_nonce_mismatch',
    );
    expect((await signIn(t, good)).status).toBe(200);
  });

  it('stores the spent nonce as a SHA-256 digest, never the raw value', async () => {
    const t = await api();
    const body = await providerSigned({});
    expect((await signIn(t, body)).status).toBe(200);
    const rows = await t.client.execute('SELECT state_id FROM oauth_consumed_states');
    expect(rows.rows).toHaveLength(1);
    expect(String(rows.rows[0]!.state_id)).toMatch(/^id-token-nonce:[0-9a-f]{64}$/);
    expect(JSON.stringify(rows.rows)).not.toContain(body.nonce);
  });

  it('does not claim a local account for an unverified provider email', async () => {
    const t = await api();
    const local = await createUser(t, { email: 'taken@example.com' });
    const nonce = newRawNonce();
    const res = await signIn(t, { idToken: await issueIdToken(op, { accountId: 'unverified-user', nonce }), nonce });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'oauth_email_not_verified', code: 'oauth_email_not_verified' });
    const identities = await t.client.execute({
      sql: 'SELECT COUNT(*) AS n FROM oauth_identities WHERE user_id = ?',
      args: [local.id],
    });
    expect(Number(identities.rows[0]!.n)).toBe(0);
  });
});
