/**
 * The OAuth provider's test kit: an API with the provider on, clients
 * inserted straight into `oauth_clients`, PKCE pairs, and calls of the
 * private authorize/consent routes and the form-encoded token endpoints.
 */
import { toBase64Url } from '../../common/encoding.js';
import { OAUTH_SERVER_OFF } from '../../src/config/oauth-server.js';
import { sha256 } from '../../src/crypto/hash.js';
import { hashOAuthSecret, newOAuthClientId, newOAuthSecret } from '../../src/crypto/oauth-server.js';
import { randomToken } from '../../src/crypto/random.js';
import { oauthClients, type OAuthClientRow, type UserRow } from '../../src/db/schema.js';
import type { SessionEnvelope } from '../../src/services/session/issuance.js';
import { createUser, signIn } from './factories.js';
import { makeApi, type CallResult, type TestApi } from './make-app.js';

export const PROVIDER_ISSUER = 'http://auth.test/auth';
export const LOGIN_URL = 'http://app.test/login';
export const RESOURCE_A = 'https://mcp.example/mcp';
export const RESOURCE_B = 'https://notes.example/api';
export const REDIRECT = 'https://client.example/callback';

export const PROVIDER_CONFIG = {
  enabled: true,
  issuer: PROVIDER_ISSUER,
  loginUrl: LOGIN_URL,
  scopes: [{ name: 'notes.read', description: 'Read your notes' }],
  resources: [
    { uri: RESOURCE_A, name: 'The MCP server', scopes: ['mcp:tools'] },
    { uri: RESOURCE_B, name: 'Notes API', scopes: ['notes.write'] },
  ],
};

/** The whole `oauth_server` value, as `PATCH /system-config/admin` wants it. */
export const FULL_PROVIDER_CONFIG = { ...OAUTH_SERVER_OFF, ...PROVIDER_CONFIG };

export async function makeProviderApi(config: Record<string, unknown> = {}): Promise<TestApi> {
  return makeApi({ env: { OAUTH_SERVER: JSON.stringify({ ...PROVIDER_CONFIG, ...config }) } });
}

export interface TestClient {
  row: OAuthClientRow;
  secret: string | null;
}

/** Inserts a client row; confidential (`client_secret_basic`) unless told otherwise. */
export async function createOAuthClient(t: TestApi, over: Partial<OAuthClientRow> = {}): Promise<TestClient> {
  const type = over.type ?? 'confidential';
  const secret = type === 'confidential' ? newOAuthSecret('client-secret') : null;
  const now = new Date(t.clock.now());
  const row: OAuthClientRow = {
    id: newOAuthClientId(),
    name: 'Test app',
    type,
    secretHash: secret ? hashOAuthSecret('client-secret', secret) : null,
    tokenEndpointAuthMethod: type === 'confidential' ? 'client_secret_basic' : 'none',
    redirectUris: [REDIRECT],
    scopes: ['openid', 'email', 'profile', 'phone', 'offline_access', 'notes.read', 'mcp:tools', 'notes.write'],
    grantTypes: ['authorization_code', 'refresh_token'],
    clientUri: 'https://client.example',
    registration: 'admin',
    skipConsent: false,
    createdBy: null,
    createdAt: now,
    updatedAt: now,
    lastUsedAt: null,
    disabledAt: null,
    ...over,
  };
  await t.api.deps.db.insert(oauthClients).values(row);
  return { row, secret };
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomToken(32);
  return { verifier, challenge: toBase64Url(sha256(verifier)) };
}

export const authorizeCall = (t: TestApi, params: Record<string, string | string[]>, token?: string) =>
  t.call('POST', '/oauth2/authorize', { body: { params }, ...(token ? { token } : {}) });

export const consentCall = (t: TestApi, token: string, requestId: string, decision: 'allow' | 'deny') =>
  t.call('POST', '/oauth2/consent', { token, body: { requestId, decision } });

/** The standard parameters of a request by `client` (PKCE S256, state, nonce). */
export function authParams(client: TestClient, challenge: string, extra: Record<string, string> = {}) {
  return {
    response_type: 'code',
    client_id: client.row.id,
    redirect_uri: client.row.redirectUris[0]!,
    scope: 'openid email',
    state: 'st-123',
    nonce: 'n-456',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  };
}

export const query = (location: string) => new URL(location).searchParams;

/** Runs authorize (+ consent allow when asked) for a signed-in user; returns the code and the PKCE verifier. */
export async function obtainCode(
  t: TestApi,
  session: SessionEnvelope,
  client: TestClient,
  extra: Record<string, string> = {},
): Promise<{ code: string; verifier: string; location: string }> {
  const { verifier, challenge } = pkce();
  let res = await authorizeCall(t, authParams(client, challenge, extra), session.token);
  if (res.body.action === 'consent') res = await consentCall(t, session.token, res.body.requestId, 'allow');
  const location: string = res.body.location;
  const code = query(location).get('code');
  if (!code) throw new Error(`no code: ${JSON.stringify(res.body)}`);
  return { code, verifier, location };
}

/** A user with a session. */
export async function signedInUser(t: TestApi, fields: Partial<UserRow> = {}) {
  const user = await createUser(t, fields);
  return { user, session: await signIn(t, user) };
}

export const basic = (id: string, secret: string) =>
  `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`;

/** A form-encoded POST; the client authenticates with its registered method unless `auth` says otherwise. */
export async function formCall(
  t: TestApi,
  path: string,
  fields: Record<string, string>,
  client?: TestClient,
  opts: { auth?: 'basic' | 'post' | 'none'; headers?: Record<string, string> } = {},
): Promise<CallResult> {
  const body = new URLSearchParams(fields);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', ...opts.headers };
  if (client) {
    const method =
      opts.auth ??
      (client.row.tokenEndpointAuthMethod === 'client_secret_basic'
        ? 'basic'
        : client.row.tokenEndpointAuthMethod === 'client_secret_post'
          ? 'post'
          : 'none');
    if (method === 'basic') headers['authorization'] = basic(client.row.id, client.secret ?? '');
    else {
      body.set('client_id', client.row.id);
      if (method === 'post') body.set('client_secret', client.secret ?? '');
    }
  }
  return t.call('POST', path, { rawBody: body.toString(), headers });
}

export const redeem = (
  t: TestApi,
  client: TestClient,
  code: string,
  verifier: string,
  extra: Record<string, string> = {},
) =>
  formCall(
    t,
    '/oauth2/token',
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.row.redirectUris[0]!,
      code_verifier: verifier,
      ...extra,
    },
    client,
  );

export const refreshCall = (t: TestApi, client: TestClient, refreshToken: string, extra: Record<string, string> = {}) =>
  formCall(t, '/oauth2/token', { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra }, client);

/** Decodes a JWT's header and payload (no verification: the tests check what was signed). */
export function decodeJwt(token: string): { header: any; payload: any } {
  const [h, p] = token.split('.');
  const dec = (s: string) =>
    JSON.parse(
      new TextDecoder().decode(
        Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (ch) => ch.charCodeAt(0)),
      ),
    );
  return { header: dec(h!), payload: dec(p!) };
}

/** Turns the OAuth provider on (or changes its config) for a test API, bypassing the admin PATCH route. */
export async function setOAuthServer(
  t: TestApi,
  patch: Partial<import('../../src/config/oauth-server.js').OAuthServerConfig>,
) {
  const { writeConfigKeys } = await import('../../src/services/config/system-config.js');
  const value = { ...OAUTH_SERVER_OFF, enabled: true, issuer: 'http://auth.test/auth', ...patch };
  await writeConfigKeys(t.api.deps.db, { oauth_server: value }, null, t.clock);
  t.api.deps.config.invalidate();
  return value;
}
