/**
 * Client authentication at the token, revocation and introspection
 * endpoints (RFC 6749 §2.3; RFC 7591 §2 method names): `client_secret_basic`
 * (id and secret form-urlencoded before base64, RFC 6749 §2.3.1),
 * `client_secret_post`, or `none` for a public client (PKCE is its proof). A
 * client may only use the method it registered, and only one per request.
 */
import { fromBase64, fromUtf8 } from '../../../common/encoding.js';
import { oauthSecretMatches } from '../../crypto/oauth-server.js';
import type { OAuthClientRow } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { findOAuthClient } from '../../repositories/oauth-clients.js';
import { oauthError } from './oauth-error.js';

/** RFC 6749 §2.3.1: `application/x-www-form-urlencoded` decoding of each half. */
function formDecode(s: string): string {
  return decodeURIComponent(s.replace(/\+/g, ' '));
}

function parseBasic(header: string | undefined): { id: string; secret: string } | 'none' | 'malformed' {
  if (!header) return 'none';
  const m = /^Basic +([A-Za-z0-9+/=]+)\s*$/i.exec(header.trim());
  if (!m) return /^Basic\b/i.test(header.trim()) ? 'malformed' : 'none';
  try {
    const decoded = fromUtf8(fromBase64(m[1]!));
    const colon = decoded.indexOf(':');
    if (colon < 0) return 'malformed';
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return 'malformed';
  }
}

export type AuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

/** The authenticated client, or `invalid_client` (401; with `WWW-Authenticate: Basic` when Basic was tried). */
export async function authenticateClient(
  deps: Pick<Deps, 'db'>,
  issuer: string,
  authorization: string | undefined,
  form: URLSearchParams,
): Promise<{ client: OAuthClientRow; method: AuthMethod }> {
  const basic = parseBasic(authorization);
  const triedBasic = basic !== 'none';
  const refuse = (description: string) =>
    oauthError(
      'invalid_client',
      description,
      401,
      triedBasic ? { 'WWW-Authenticate': `Basic realm="${issuer}", charset="UTF-8"` } : {},
    );
  if (basic === 'malformed') throw refuse('Malformed Basic credentials');
  const postSecret = form.get('client_secret');
  const formId = form.get('client_id');
  if (triedBasic && postSecret !== null)
    throw oauthError('invalid_request', 'Use one client authentication method, not several');
  const method: AuthMethod = triedBasic ? 'client_secret_basic' : postSecret !== null ? 'client_secret_post' : 'none';
  const id = triedBasic ? basic.id : formId;
  if (triedBasic && formId !== null && formId !== basic.id) throw refuse('client_id does not match the credentials');
  if (!id) throw refuse('Client authentication is required');
  const client = id.length <= 200 ? await findOAuthClient(deps.db, id) : null;
  if (!client || client.disabledAt) throw refuse('Client authentication failed');
  if (client.tokenEndpointAuthMethod !== method) throw refuse('Client authentication failed');
  if (method !== 'none') {
    const secret = triedBasic ? basic.secret : postSecret!;
    if (!client.secretHash || !oauthSecretMatches('client-secret', client.secretHash, secret))
      throw refuse('Client authentication failed');
  }
  return { client, method };
}
