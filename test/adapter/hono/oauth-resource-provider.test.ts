/**
 * `requireOAuth` against the access tokens svc's own provider issues (the
 * real authorization-code and refresh grants of the in-process API, keys from
 * its JWKS): a token for resource A passes at A with its scope and is refused
 * at resource B; a rotated token passes; the provider's userinfo-only token
 * (audience = the issuer) and an svc session token are refused; a token
 * without the resource's scope is 403 `insufficient_scope`.
 */
import { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireOAuth, type OAuthVariables } from '../../../adapter/hono/index.js';
import type { OAuthResourceOptions } from '../../../adapter/core/oauth-resource.js';
import {
  createOAuthClient,
  makeProviderApi,
  obtainCode,
  PROVIDER_ISSUER,
  RESOURCE_A,
  RESOURCE_B,
  redeem,
  refreshCall,
  signedInUser,
  type TestClient,
} from '../../helpers/oauth-server.js';
import type { TestApi } from '../../helpers/make-app.js';
import type { SessionEnvelope } from '../../../src/services/session/issuance.js';

let t: TestApi;
let client: TestClient;
let session: SessionEnvelope;
let userId: string;

function resourceServer(resource: string, scopes: string[]) {
  const opts: OAuthResourceOptions = {
    issuer: PROVIDER_ISSUER,
    resource,
    scopes,
    // The provider's JWKS is the API's (the adapter serves it under the issuer).
    jwksUrl: `${PROVIDER_ISSUER}/.well-known/jwks.json`,
    fetch: async (_url, init) => t.api.request('/.well-known/jwks.json', init),
  };
  const app = new Hono<{ Variables: OAuthVariables }>();
  app.get('/', requireOAuth(opts), (c) => c.json(c.var.oauth));
  return (token: string) => app.request('/', { headers: { authorization: `Bearer ${token}` } });
}

beforeAll(async () => {
  t = await makeProviderApi();
  client = await createOAuthClient(t);
  const signed = await signedInUser(t);
  session = signed.session;
  userId = signed.user.id;
});

async function tokensFor(extra: Record<string, string>) {
  const { code, verifier } = await obtainCode(t, session, client, extra);
  const res = await redeem(t, client, code, verifier);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { access_token: string; refresh_token: string };
}

describe('requireOAuth with the provider’s own tokens', () => {
  it('passes a token for resource A at A, refuses it at B; the rotated token passes too', async () => {
    const atA = resourceServer(RESOURCE_A, ['mcp:tools']);
    const atB = resourceServer(RESOURCE_B, []);
    const tokens = await tokensFor({ scope: 'openid mcp:tools', resource: RESOURCE_A });
    const ok = await atA(tokens.access_token);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ sub: userId, clientId: client.row.id, audience: [RESOURCE_A] });
    const wrong = await atB(tokens.access_token);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');

    const rotated = await refreshCall(t, client, tokens.refresh_token);
    expect(rotated.status).toBe(200);
    expect((await atA(rotated.body.access_token)).status).toBe(200);
  });

  it('refuses the userinfo-only token (audience = the issuer) and an svc session token', async () => {
    const atA = resourceServer(RESOURCE_A, []);
    const userinfoOnly = await tokensFor({ scope: 'openid' });
    expect((await atA(userinfoOnly.access_token)).status).toBe(401);
    expect((await atA(session.token)).status).toBe(401);
  });

  it('answers 403 insufficient_scope for a token of A without the required scope', async () => {
    const needsTools = resourceServer(RESOURCE_A, ['mcp:tools']);
    const tokens = await tokensFor({ scope: 'openid', resource: RESOURCE_A });
    const res = await needsTools(tokens.access_token);
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope", error_description=');
    expect(res.headers.get('www-authenticate')).toContain('scope="mcp:tools"');
  });
});
