/**
 * `verifyOAuthAccessToken` against real RS256 keys published as a real JWKS
 * over a local HTTP server: every refusal a resource server owes (expired,
 * wrong issuer, a token for resource A at resource B, a session-style
 * `typ: JWT` token, HS256 and `alg: none`, an unknown kid, a missing scope)
 * and the RFC 9728 metadata document and URL form.
 */
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, base64url, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  protectedResourceMetadata,
  protectedResourceMetadataPath,
  protectedResourceMetadataUrl,
  readBearerToken,
  verifyOAuthAccessToken,
  type OAuthResourceOptions,
} from '../../../adapter/core/oauth-resource.js';

type Pair = Awaited<ReturnType<typeof generateKeyPair>>;
let signing: Pair;
let stranger: Pair;
let server: Server;
let issuer = '';
let jwksFetches = 0;
const RESOURCE_A = 'https://mcp-a.example/mcp';
const RESOURCE_B = 'https://mcp-b.example/mcp';

beforeAll(async () => {
  [signing, stranger] = await Promise.all([
    generateKeyPair('RS256', { extractable: true }),
    generateKeyPair('RS256', { extractable: true }),
  ]);
  const jwk: JWK = { ...(await exportJWK(signing.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  server = createServer((req, res) => {
    if (req.url !== '/auth/.well-known/jwks.json') return res.writeHead(404).end();
    jwksFetches++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}/auth`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const nowS = () => Math.floor(Date.now() / 1000);

function token(
  claims: Record<string, unknown> = {},
  header: { typ?: string; kid?: string } = {},
  key: CryptoKey = signing.privateKey,
) {
  const { iat = nowS(), exp = nowS() + 900, ...rest } = claims;
  return new SignJWT({ client_id: 'c1', scope: 'mcp openid', jti: 'j1', gid: 'g1', ...rest })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'k1', ...header })
    .setIssuer((claims.iss as string) ?? issuer)
    .setSubject('user-1')
    .setAudience((claims.aud as string | string[]) ?? RESOURCE_A)
    .setIssuedAt(iat as number)
    .setExpirationTime(exp as number)
    .sign(key);
}

const opts = (over: Partial<OAuthResourceOptions> = {}): OAuthResourceOptions => ({
  issuer,
  resource: RESOURCE_A,
  ...over,
});
const METADATA_A = 'https://mcp-a.example/.well-known/oauth-protected-resource/mcp';

describe('verifyOAuthAccessToken', () => {
  it('accepts a provider access token for this resource and returns its claims', async () => {
    const r = await verifyOAuthAccessToken(await token(), opts({ scopes: ['mcp'] }));
    expect(r).toMatchObject({
      ok: true,
      claims: {
        sub: 'user-1',
        clientId: 'c1',
        scopes: ['mcp', 'openid'],
        audience: [RESOURCE_A],
        jti: 'j1',
        grantId: 'g1',
      },
    });
  });

  it('fetches the JWKS once per options object, not per request', async () => {
    const o = opts();
    const before = jwksFetches;
    for (let i = 0; i < 5; i++) expect((await verifyOAuthAccessToken(await token(), o)).ok).toBe(true);
    expect(jwksFetches - before).toBe(1);
  });

  it('accepts an aud list containing the resource, and the URL-normalized form clients send for a bare origin', async () => {
    expect((await verifyOAuthAccessToken(await token({ aud: ['x', RESOURCE_A] }), opts())).ok).toBe(true);
    const bare = opts({ resource: 'https://mcp.example' });
    expect((await verifyOAuthAccessToken(await token({ aud: 'https://mcp.example/' }), bare)).ok).toBe(true);
  });

  it('no token: 401 without an error code, the resource_metadata hint and the scopes', async () => {
    const r = await verifyOAuthAccessToken(undefined, opts({ scopes: ['mcp', 'notes:read'] }));
    expect(r).toEqual({
      ok: false,
      status: 401,
      wwwAuthenticate: `Bearer resource_metadata="${METADATA_A}", scope="mcp notes:read"`,
    });
  });

  const refusals: [string, () => Promise<string>, Partial<OAuthResourceOptions>?][] = [
    ['expired (beyond the 30 s skew)', () => token({ iat: nowS() - 1000, exp: nowS() - 31 })],
    ['not yet valid (nbf beyond the skew)', () => token({ nbf: nowS() + 120 })],
    ['issued in the future (iat beyond the skew)', () => token({ iat: nowS() + 120, exp: nowS() + 1000 })],
    ['a wrong issuer', () => token({ iss: 'https://evil.example/auth' })],
    ['an issuer differing only by a trailing slash', () => token({ iss: `${issuer}/` })],
    ['a token for resource A at resource B', () => token({ aud: RESOURCE_A }), { resource: RESOURCE_B }],
    ['an svc session-style token (typ JWT)', () => token({}, { typ: 'JWT' })],
    ['a token without typ', () => token({}, { typ: undefined })],
    ['an unknown kid', () => token({}, { kid: 'nope' })],
    ['a token signed by another key under the known kid', () => token({}, {}, stranger.privateKey)],
    ['a token without client_id', () => token({ client_id: undefined })],
    ['a token without scope', () => token({ scope: undefined })],
    ['a token whose scope is not a string', () => token({ scope: ['mcp'] })],
    ['garbage', async () => 'not.a.jwt'],
  ];
  for (const [name, make, over] of refusals) {
    it(`refuses ${name}: 401 invalid_token`, async () => {
      const o = opts(over);
      const r = await verifyOAuthAccessToken(await make(), o);
      expect(r).toMatchObject({ ok: false, status: 401, error: 'invalid_token' });
      if (!r.ok)
        expect(r.wwwAuthenticate).toMatch(
          new RegExp(
            `^Bearer resource_metadata="${protectedResourceMetadataUrl(o.resource)}", error="invalid_token", error_description="[^"]+"$`,
          ),
        );
    });
  }

  it('refuses HS256 (even keyed with the public key) and alg none', async () => {
    const jwk = await exportJWK(signing.publicKey);
    const hs = await new SignJWT({ client_id: 'c1', scope: 'mcp' })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: 'k1' })
      .setIssuer(issuer)
      .setSubject('user-1')
      .setAudience(RESOURCE_A)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(JSON.stringify(jwk)));
    const good = await token();
    const [, payload] = good.split('.');
    const none = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: 'k1' }))}.${payload}.`;
    for (const t of [hs, none])
      expect(await verifyOAuthAccessToken(t, opts())).toMatchObject({ ok: false, status: 401, error: 'invalid_token' });
  });

  it('refuses HS256 even when the key set holds a symmetric key under the kid', async () => {
    const secret = new TextEncoder().encode('s'.repeat(32));
    const hs = await new SignJWT({ client_id: 'c1', scope: 'mcp' })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: 'k1' })
      .setIssuer(issuer)
      .setSubject('user-1')
      .setAudience(RESOURCE_A)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(secret);
    const jwks = { keys: [{ kty: 'oct', kid: 'k1', k: base64url.encode(secret) }] };
    expect(await verifyOAuthAccessToken(hs, opts({ jwks }))).toMatchObject({ ok: false, error: 'invalid_token' });
  });

  it('a missing scope: 403 insufficient_scope with scope= in the header', async () => {
    const r = await verifyOAuthAccessToken(await token({ scope: 'openid' }), opts({ scopes: ['mcp'] }));
    expect(r).toMatchObject({ ok: false, status: 403, error: 'insufficient_scope' });
    if (!r.ok)
      expect(r.wwwAuthenticate).toBe(
        `Bearer resource_metadata="${METADATA_A}", error="insufficient_scope", error_description="The access token lacks scope: mcp", scope="mcp"`,
      );
    // A scope that only contains the required one as a substring does not count.
    expect((await verifyOAuthAccessToken(await token({ scope: 'mcp:admin' }), opts({ scopes: ['mcp'] }))).ok).toBe(
      false,
    );
  });

  it('never throws: an unreachable JWKS is a 401 invalid_token', async () => {
    const r = await verifyOAuthAccessToken(await token(), opts({ jwksUrl: 'http://127.0.0.1:1/jwks.json' }));
    expect(r).toMatchObject({ ok: false, status: 401, error: 'invalid_token' });
  });

  it('uses a passed fetch (a Workers service binding) for the JWKS', async () => {
    const seen: string[] = [];
    const r = await verifyOAuthAccessToken(
      await token(),
      opts({
        fetch: (u, init) => {
          seen.push(u);
          return fetch(u, init);
        },
      }),
    );
    expect(r.ok).toBe(true);
    expect(seen).toEqual([`${issuer}/.well-known/jwks.json`]);
  });

  it('honours resourceMetadataUrl in the header', async () => {
    const r = await verifyOAuthAccessToken('', opts({ resourceMetadataUrl: 'https://x.example/meta' }));
    expect(!r.ok && r.wwwAuthenticate).toBe('Bearer resource_metadata="https://x.example/meta"');
  });
});

describe('readBearerToken', () => {
  it('reads the Bearer scheme case-insensitively, nothing else', () => {
    expect(readBearerToken('Bearer abc.def-_~+/=')).toBe('abc.def-_~+/=');
    expect(readBearerToken('bearer abc')).toBe('abc');
    expect(readBearerToken('Basic abc')).toBeNull();
    expect(readBearerToken('Bearer a b')).toBeNull();
    expect(readBearerToken(undefined)).toBeNull();
  });
});

describe('protected-resource metadata (RFC 9728)', () => {
  it('is the RFC 9728 document naming the issuer', () => {
    expect(
      protectedResourceMetadata({ resource: RESOURCE_A, issuer, scopes: ['mcp'], resourceName: 'Notes MCP' }),
    ).toEqual({
      resource: RESOURCE_A,
      authorization_servers: [issuer],
      scopes_supported: ['mcp'],
      bearer_methods_supported: ['header'],
      resource_name: 'Notes MCP',
    });
  });

  it('inserts the well-known path between the host and the path (RFC 9728 §3.1)', () => {
    expect(protectedResourceMetadataUrl('https://mcp.example/mcp')).toBe(METADATA_A.replace('mcp-a.', 'mcp.'));
    expect(protectedResourceMetadataUrl('https://mcp.example')).toBe(
      'https://mcp.example/.well-known/oauth-protected-resource',
    );
    expect(protectedResourceMetadataUrl('https://mcp.example/')).toBe(
      'https://mcp.example/.well-known/oauth-protected-resource',
    );
    expect(protectedResourceMetadataUrl('http://localhost:8787/a/b?x=1')).toBe(
      'http://localhost:8787/.well-known/oauth-protected-resource/a/b?x=1',
    );
    expect(protectedResourceMetadataPath('https://mcp.example/mcp')).toBe('/.well-known/oauth-protected-resource/mcp');
  });
});
