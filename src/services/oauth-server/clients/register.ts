/**
 * RFC 7591 dynamic client registration (docs/oauth-provider.md, "Clients"):
 * anyone may register, so the request is held to the same redirect URI rules
 * as an admin's, limited to the standard and resource scopes, never skips
 * consent, and is marked `registration: 'dynamic'` (the consent page says so;
 * the maintenance purge deletes it when unused). Errors are RFC 7591 §3.2.2's
 * `invalid_redirect_uri` / `invalid_client_metadata`.
 */
import type { OAuthServerConfig } from '../../../config/oauth-server.js';
import type { Deps } from '../../../deps.js';
import { hashOAuthSecret, newOAuthClientId, newOAuthSecret } from '../../../crypto/oauth-server.js';
import { insertOAuthClient } from '../../../repositories/oauth-clients.js';
import { clientUriProblem } from './admin.js';
import {
  allowedScopes,
  AUTH_METHODS,
  authMethodFits,
  GRANT_TYPES,
  redirectUrisProblem,
  unique,
  unknownScopes,
  type AuthMethod,
  type GrantType,
} from './rules.js';

export class RegistrationError extends Error {
  constructor(
    readonly error: 'invalid_redirect_uri' | 'invalid_client_metadata',
    readonly description: string,
  ) {
    super(description);
    this.name = 'RegistrationError';
  }
}

const metadata = (description: string) => new RegistrationError('invalid_client_metadata', description);

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

function optionalString(body: Record<string, unknown>, field: string, maxLength: number): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > maxLength)
    throw metadata(`${field} must be a string of 1 to ${maxLength} characters`);
  return v;
}

function stringArray(body: Record<string, unknown>, field: string, fallback: string[]): string[] {
  const v = body[field];
  if (v === undefined || v === null) return fallback;
  if (!isStringArray(v) || v.length === 0 || v.length > 10) throw metadata(`${field} must be 1 to 10 strings`);
  return unique(v);
}

export interface Registered {
  row: Parameters<typeof insertOAuthClient>[1];
  secret: string | null;
}

/** Validates an RFC 7591 request and builds the client row (unknown metadata is ignored, RFC 7591 §2). */
export function buildRegistration(
  body: unknown,
  cfg: OAuthServerConfig,
  production: boolean,
  nowMs: number,
): Registered {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw metadata('the request body must be a JSON object');
  const b = body as Record<string, unknown>;

  const method = (optionalString(b, 'token_endpoint_auth_method', 64) ?? 'client_secret_basic') as AuthMethod;
  if (!AUTH_METHODS.includes(method))
    throw metadata(`token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`);
  const type = method === 'none' ? 'public' : 'confidential';
  if (!authMethodFits(type, method)) throw metadata('token_endpoint_auth_method does not fit the client type');

  const redirectUris = b['redirect_uris'];
  if (!isStringArray(redirectUris) || redirectUris.length === 0)
    throw new RegistrationError('invalid_redirect_uri', 'redirect_uris must be a non-empty array of strings');
  const uriProblem = redirectUrisProblem(unique(redirectUris), type, production);
  if (uriProblem)
    throw new RegistrationError('invalid_redirect_uri', `redirect_uris[${uriProblem.index}] ${uriProblem.message}`);

  const grantTypes = stringArray(b, 'grant_types', ['authorization_code']);
  if (!grantTypes.every((g) => (GRANT_TYPES as readonly string[]).includes(g)))
    throw metadata(`grant_types may only contain ${GRANT_TYPES.join(', ')}`);
  if (!grantTypes.includes('authorization_code')) throw metadata('grant_types must include authorization_code');
  const responseTypes = stringArray(b, 'response_types', ['code']);
  if (responseTypes.length !== 1 || responseTypes[0] !== 'code') throw metadata('response_types must be ["code"]');

  const allowed = allowedScopes(cfg, 'dynamic');
  const scopeText = optionalString(b, 'scope', 1000);
  const scopes = scopeText === undefined ? [...allowed] : unique(scopeText.split(' ').filter(Boolean));
  const unknown = unknownScopes(scopes, allowed);
  if (unknown.length || scopes.length === 0)
    throw metadata(`scope ${JSON.stringify(unknown[0] ?? '')} is not available`);

  const clientUri = optionalString(b, 'client_uri', 2048);
  if (clientUri) {
    const problem = clientUriProblem(clientUri, production);
    if (problem) throw metadata(`client_uri ${problem}`);
  }
  // The consent page needs a name; without one it shows the host the user would be sent back to.
  const name =
    optionalString(b, 'client_name', 100)?.trim() ||
    (() => {
      try {
        return new URL(redirectUris[0]!).host || redirectUris[0]!.slice(0, 100);
      } catch {
        return 'Unnamed application';
      }
    })();

  const id = newOAuthClientId();
  const secret = type === 'confidential' ? newOAuthSecret('client-secret') : null;
  const now = new Date(nowMs);
  return {
    secret,
    row: {
      id,
      name,
      type,
      secretHash: secret ? hashOAuthSecret('client-secret', secret) : null,
      tokenEndpointAuthMethod: method,
      redirectUris: unique(redirectUris),
      scopes,
      grantTypes: grantTypes as GrantType[],
      clientUri: clientUri ?? null,
      registration: 'dynamic',
      skipConsent: false,
      createdBy: null,
      createdAt: now,
      updatedAt: now,
    },
  };
}

/** The RFC 7591 §3.2.1 answer: the client's id (and secret, once) plus its registered metadata. */
export function registrationResponse({ row, secret }: Registered) {
  return {
    client_id: row.id,
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    client_id_issued_at: Math.floor(row.createdAt.getTime() / 1000),
    client_name: row.name,
    redirect_uris: row.redirectUris,
    grant_types: row.grantTypes,
    response_types: ['code'],
    token_endpoint_auth_method: row.tokenEndpointAuthMethod,
    scope: row.scopes.join(' '),
    ...(row.clientUri ? { client_uri: row.clientUri } : {}),
  };
}

type RegisterDeps = Pick<Deps, 'db' | 'clock' | 'env' | 'events' | 'config'>;

export async function registerClient(
  deps: RegisterDeps,
  body: unknown,
  cfg: OAuthServerConfig,
  client: { ip: string | null; userAgent: string | null },
) {
  const registered = buildRegistration(body, cfg, deps.env.production, deps.clock.now());
  await insertOAuthClient(deps.db, registered.row);
  await deps.events.record({
    type: 'oauth_client_registered',
    ipAddress: client.ip,
    userAgent: client.userAgent,
    metadata: {
      clientId: registered.row.id,
      name: registered.row.name,
      clientType: registered.row.type,
      redirectUris: registered.row.redirectUris,
    },
  });
  return registrationResponse(registered);
}
