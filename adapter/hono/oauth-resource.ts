/**
 * Resource servers on Hono: `requireOAuth` guards routes with the provider's
 * access tokens, `oauthProtectedResource` serves the RFC 9728 metadata that
 * the 401's `WWW-Authenticate` hint points MCP clients to.
 */
import type { Handler, MiddlewareHandler } from 'hono';
import {
  checkOAuthResourceOptions,
  oauthRefusalBody,
  protectedResourceMetadata,
  readBearerToken,
  verifyOAuthAccessToken,
  type OAuthClaims,
  type OAuthResourceOptions,
} from '../core/oauth-resource.js';
import { requestHeader } from '../../common/hono-request.js';

/** Context variables set by `requireOAuth`: `c.get('oauth')`. */
export type OAuthVariables = {
  oauth: OAuthClaims;
};

/**
 * Verifies the request's `Authorization: Bearer` provider access token for
 * `resource` (and `scopes`) and sets `c.var.oauth`; otherwise 401 (no or bad
 * token) or 403 `insufficient_scope`, with `WWW-Authenticate: Bearer
 * resource_metadata="…"`. The JWKS is fetched once per middleware (pass
 * `fetch` for a Workers service binding). Throws at construction on bad options.
 *
 * @example
 * const oauth = { issuer: 'https://app.example/auth', resource: 'https://mcp.example/mcp', scopes: ['mcp'] };
 * app.get(protectedResourceMetadataPath(oauth.resource), oauthProtectedResource(oauth));
 * app.post('/mcp', requireOAuth(oauth), (c) => c.json({ user: c.var.oauth.sub, client: c.var.oauth.clientId }));
 */
export function requireOAuth(opts: OAuthResourceOptions): MiddlewareHandler<{ Variables: OAuthVariables }> {
  checkOAuthResourceOptions(opts, 'requireOAuth');
  const own: OAuthResourceOptions = { ...opts, scopes: opts.scopes ? [...opts.scopes] : undefined };
  return async (c, next) => {
    const result = await verifyOAuthAccessToken(readBearerToken(requestHeader(c, 'authorization')), own);
    if (!result.ok) {
      c.header('www-authenticate', result.wwwAuthenticate);
      c.header('cache-control', 'no-store');
      return c.json(oauthRefusalBody(result), result.status);
    }
    c.set('oauth', result.claims);
    await next();
  };
}

/**
 * `GET` handler answering the RFC 9728 protected-resource metadata of
 * `resource`; mount it at `protectedResourceMetadataPath(resource)` (the
 * path-inserted well-known form of RFC 9728 §3.1). Public and CORS-open:
 * browser-based MCP clients read it cross-origin.
 *
 * @example
 * app.get('/.well-known/oauth-protected-resource/mcp', oauthProtectedResource({
 *   issuer: 'https://app.example/auth', resource: 'https://mcp.example/mcp', scopes: ['mcp'], resourceName: 'Notes MCP',
 * }));
 */
export function oauthProtectedResource(opts: OAuthResourceOptions): Handler {
  checkOAuthResourceOptions(opts, 'oauthProtectedResource');
  const body = JSON.stringify(protectedResourceMetadata(opts));
  return () =>
    new Response(body, {
      headers: {
        'content-type': 'application/json',
        'cache-control': 'public, max-age=300',
        'access-control-allow-origin': '*',
      },
    });
}
