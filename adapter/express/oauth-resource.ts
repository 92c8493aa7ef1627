/**
 * Resource servers on Express: the twin of `svc-auth/hono`'s `requireOAuth`
 * (sets `req.oauth`) and `oauthProtectedResource` (the RFC 9728 metadata).
 */
import type { RequestHandler } from 'express';
import {
  checkOAuthResourceOptions,
  oauthRefusalBody,
  protectedResourceMetadata,
  readBearerToken,
  verifyOAuthAccessToken,
  type OAuthResourceOptions,
} from '../core/oauth-resource.js';
import { header } from './request.js';
import { sendJson } from './respond.js';
import './types.js';

/**
 * Verifies the request's `Authorization: Bearer` provider access token for
 * `resource` (and `scopes`) and sets `req.oauth`; otherwise 401 (no or bad
 * token) or 403 `insufficient_scope`, with `WWW-Authenticate: Bearer
 * resource_metadata="…"`. The JWKS is fetched once per middleware. Throws at
 * construction on bad options.
 *
 * @example
 * const oauth = { issuer: 'https://app.example/auth', resource: 'https://api.example/notes', scopes: ['notes:read'] };
 * app.get(protectedResourceMetadataPath(oauth.resource), oauthProtectedResource(oauth));
 * app.get('/notes', requireOAuth(oauth), (req, res) => res.json({ user: req.oauth!.sub }));
 */
export function requireOAuth(opts: OAuthResourceOptions): RequestHandler {
  checkOAuthResourceOptions(opts, 'requireOAuth');
  const own: OAuthResourceOptions = { ...opts, scopes: opts.scopes ? [...opts.scopes] : undefined };
  return (req, res, next) => {
    verifyOAuthAccessToken(readBearerToken(header(req, 'authorization')), own).then(
      (result) => {
        if (result.ok) {
          req.oauth = result.claims;
          return next();
        }
        res.setHeader('www-authenticate', result.wwwAuthenticate);
        res.setHeader('cache-control', 'no-store');
        sendJson(res, result.status, oauthRefusalBody(result));
      },
      () => sendJson(res, 500, { error: 'internal_error', message: 'Internal server error' }),
    );
  };
}

/**
 * `GET` handler answering the RFC 9728 protected-resource metadata of
 * `resource`; mount it at `protectedResourceMetadataPath(resource)`. Public
 * and CORS-open: browser-based MCP clients read it cross-origin.
 *
 * @example
 * app.get('/.well-known/oauth-protected-resource/notes', oauthProtectedResource({
 *   issuer: 'https://app.example/auth', resource: 'https://api.example/notes', scopes: ['notes:read'],
 * }));
 */
export function oauthProtectedResource(opts: OAuthResourceOptions): RequestHandler {
  checkOAuthResourceOptions(opts, 'oauthProtectedResource');
  const body = JSON.stringify(protectedResourceMetadata(opts));
  return (_req, res) => {
    res.setHeader('cache-control', 'public, max-age=300');
    res.setHeader('access-control-allow-origin', '*');
    sendJson(res, 200, JSON.parse(body));
  };
}
