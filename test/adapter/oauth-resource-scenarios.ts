/**
 * The same resource-server scenarios for both adapters (`requireOAuth`,
 * `oauthProtectedResource`): a real in-process auth API whose JWKS the guard
 * fetches through `fetch` (as a Workers service binding would), provider-style
 * RS256 `at+jwt` tokens signed with the API's own signing key, and a real svc
 * session access token from that API, which must never pass.
 */
import { importPKCS8, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthResourceOptions } from '../../adapter/core/oauth-resource.js';
import { createUser, signIn } from '../helpers/factories.js';
import { testSigningKey } from '../helpers/keys.js';
import { makeApi, TEST_ISSUER, type TestApi } from '../helpers/make-app.js';

export const RESOURCE = 'http://mcp.test/mcp';
export const OTHER_RESOURCE = 'http://other.test/mcp';
export const METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

/** An app with `GET /mcp` behind `requireOAuth(opts)` answering `{oauth}` and the metadata at `METADATA_PATH`. */
export type MountResourceServer = (opts: OAuthResourceOptions) => Promise<{
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}>;

export function resourceServerScenarios(name: string, mount: MountResourceServer): void {
  describe(`${name}: requireOAuth and oauthProtectedResource`, () => {
    let t: TestApi;
    let key: CryptoKey;
    let app: Awaited<ReturnType<MountResourceServer>>;
    let jwksCalls = 0;

    beforeAll(async () => {
      t = await makeApi();
      key = await importPKCS8((await testSigningKey()).privatePem, 'RS256');
      app = await mount({
        issuer: TEST_ISSUER,
        resource: RESOURCE,
        scopes: ['mcp'],
        resourceName: 'Test MCP',
        fetch: async (url, init) => {
          jwksCalls++;
          return t.api.request(url, init);
        },
      });
    });
    afterAll(() => app.close());

    const providerToken = (claims: Record<string, unknown> = {}, typ = 'at+jwt') =>
      new SignJWT({ client_id: 'client-1', scope: 'mcp openid', gid: 'g1', ...claims })
        .setProtectedHeader({ alg: 'RS256', typ, kid: 'dev-main' })
        .setIssuer(TEST_ISSUER)
        .setSubject('user-1')
        .setAudience((claims.aud as string) ?? RESOURCE)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(key);
    const get = (token?: string) => app.request('/mcp', token ? { headers: { authorization: `Bearer ${token}` } } : {});
    const hint = `Bearer resource_metadata="http://mcp.test${METADATA_PATH}"`;

    it('lets a provider token for this resource through and exposes its claims', async () => {
      const res = await get(await providerToken());
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        oauth: { sub: 'user-1', clientId: 'client-1', scopes: ['mcp', 'openid'], grantId: 'g1' },
      });
      await get(await providerToken());
      expect(jwksCalls).toBe(1); // the key set is fetched once per middleware, not per request
    });

    it('no token: 401 with the resource_metadata hint (RFC 9728 §5.1) and no error code', async () => {
      const res = await get();
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(`${hint}, scope="mcp"`);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual({
        error: 'unauthorized',
        error_description: 'A bearer access token is required',
      });
    });

    it('a token for another resource: 401 invalid_token', async () => {
      const res = await get(await providerToken({ aud: OTHER_RESOURCE }));
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(new RegExp(`^${hint}, error="invalid_token"`));
      expect((await res.json()).error).toBe('invalid_token');
    });

    it('a real svc session access token from the same API and key: 401 invalid_token', async () => {
      const session = await signIn(t, await createUser(t));
      const res = await get(session.token);
      expect(res.status).toBe(401);
      expect((await res.json()).error).toBe('invalid_token');
      // Even relabelled at+jwt-style it lacks the provider's claims; the typ check alone refuses the real one.
      const sessionLike = await providerToken({}, 'JWT');
      expect((await get(sessionLike)).status).toBe(401);
    });

    it('a token without the required scope: 403 insufficient_scope with scope=', async () => {
      const res = await get(await providerToken({ scope: 'openid' }));
      expect(res.status).toBe(403);
      expect(res.headers.get('www-authenticate')).toBe(
        `${hint}, error="insufficient_scope", error_description="The access token lacks scope: mcp", scope="mcp"`,
      );
      expect((await res.json()).error).toBe('insufficient_scope');
    });

    it('serves the RFC 9728 metadata document, CORS-open', async () => {
      const res = await app.request(METADATA_PATH);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await res.json()).toEqual({
        resource: RESOURCE,
        authorization_servers: [TEST_ISSUER],
        scopes_supported: ['mcp'],
        bearer_methods_supported: ['header'],
        resource_name: 'Test MCP',
      });
    });
  });
}
