/**
 * Real ID tokens from the test OpenID provider, as a native sign-in sheet
 * hands them to the app: the authorization-code flow driven over HTTP with
 * the nonce of the caller's choice, then the token exchange. Also a signing
 * key set to start providers that share (or do not share) keys.
 */
import { createHash, randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import type { TestOidcProvider } from './oidc-provider.js';

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** A raw nonce as an app makes it (32 random bytes, base64url). */
export const newRawNonce = () => b64url(randomBytes(32));
export const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');
export const sha256B64Url = (s: string) => createHash('sha256').update(s).digest('base64url');

export async function issueIdToken(
  op: TestOidcProvider,
  opts: { accountId: string; nonce: string; clientId?: string; clientSecret?: string },
): Promise<string> {
  const clientId = opts.clientId ?? op.clientId;
  const clientSecret = opts.clientSecret ?? op.clientSecret;
  const redirectUri = op.redirectUris[0]!;
  const verifier = b64url(randomBytes(32));
  const url = new URL(op.endpoints.authorizationUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('scope', 'openid email profile');
  url.searchParams.set('state', b64url(randomBytes(16)));
  url.searchParams.set('nonce', opts.nonce);
  url.searchParams.set('code_challenge', createHash('sha256').update(verifier).digest('base64url'));
  url.searchParams.set('code_challenge_method', 'S256');
  const { code } = await op.authorize(url.href, opts.accountId);
  const res = await fetch(op.endpoints.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: clientId,
      client_secret: clientSecret,
      code_verifier: verifier,
    }),
  });
  const body = (await res.json()) as { id_token?: string };
  if (!body.id_token) throw new Error(`token endpoint gave no id_token (${res.status} ${JSON.stringify(body)})`);
  return body.id_token;
}

/** A private RS256 JWK set with one key (`kid`), for `startOidcProvider({ jwks })`. */
export async function signingJwks(kid: string) {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { keys: [{ ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' }] };
}
