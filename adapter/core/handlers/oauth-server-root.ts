/**
 * The RFC 8414 §3.1 path-inserted metadata at the application root: for the issuer
 * `https://app.example/auth` a client may ask `/.well-known/oauth-authorization-server/auth` (the
 * MCP authorization spec's first try) or `/.well-known/openid-configuration/auth`. Only the
 * issuer's own path answers; any other falls through to the application (null).
 */
import type { AdapterCore } from '../core.js';
import type { HandlerResult } from '../result.js';
import { cachedDocument, issuerPath, METADATA_PATH } from './oauth-server-metadata.js';
import { preflight, type OAuthServerRequest } from './oauth-server-forward.js';

export const ROOT_METADATA_PREFIXES = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'];

export async function rootMetadata(
  core: AdapterCore,
  suffix: string,
  req: OAuthServerRequest,
): Promise<HandlerResult | null> {
  const path = await issuerPath(core);
  if (!path || suffix !== path) return null;
  if (req.method === 'OPTIONS')
    return preflight(
      [{ method: 'GET', path: suffix, raw: '', upstreamMethod: 'GET', kind: 'metadata', cors: true }],
      suffix,
      req,
    );
  return cachedDocument(core, METADATA_PATH);
}
