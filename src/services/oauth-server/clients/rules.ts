/**
 * What a client may register (docs/oauth-provider.md, "Clients"): redirect
 * URIs after the OAuth 2.1 draft and RFC 8252 (native apps), the scopes it may
 * ask for, and the grant types and token endpoint authentication methods the
 * provider implements. Shared by the admin API and dynamic registration, so
 * neither path can register what the other refuses.
 */
import { STANDARD_SCOPES, type OAuthServerConfig } from '../../../config/oauth-server.js';

export const REDIRECT_URI_MAX_LENGTH = 2048;
export const MAX_REDIRECT_URIS = 10;
export const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
export const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;
export type ClientType = 'confidential' | 'public';
export type GrantType = (typeof GRANT_TYPES)[number];
export type AuthMethod = (typeof AUTH_METHODS)[number];

/** RFC 8252 §7.3: loopback IP literals only; `localhost` can be re-pointed by the machine's resolver. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]']);

/**
 * RFC 8252 §7.1: a private-use scheme is a reverse domain name (`com.example.app`), so it
 * always has a dot; that also keeps `javascript:`, `data:`, `file:` and friends out.
 */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/;

/**
 * Why this redirect URI may not be registered, or null when it may. Production:
 * https; a loopback IP over http or a private-use scheme only for a public
 * (native) client. Outside production http is accepted for any host (local
 * development). Everywhere: absolute, no fragment, no credentials, no wildcard
 * (matching is exact, the OAuth 2.1 draft).
 */
export function redirectUriProblem(value: string, type: ClientType, production: boolean): string | null {
  if (value.length > REDIRECT_URI_MAX_LENGTH) return `must be at most ${REDIRECT_URI_MAX_LENGTH} characters`;
  if (value.includes('*')) return 'must not contain a wildcard: redirect URIs are matched exactly';
  if (value.includes('#')) return 'must not contain a fragment';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not contain credentials';
  if (url.protocol === 'https:') return url.hostname ? null : 'must name a host';
  if (url.protocol === 'http:') {
    if (!production) return null;
    if (!LOOPBACK_HOSTS.has(url.hostname))
      return 'must use https (http only for a loopback IP, 127.0.0.1 or [::1], of a public client)';
    return type === 'public' ? null : 'a loopback http redirect URI is for public (native) clients only';
  }
  if (PRIVATE_USE_SCHEME.test(url.protocol))
    return type === 'public' ? null : 'a private-use scheme is for public (native) clients only';
  return 'must use https, a loopback http URL or a private-use scheme such as com.example.app:/callback';
}

/** The first problem among a client's redirect URIs, with its index, or null. */
export function redirectUrisProblem(
  uris: readonly string[],
  type: ClientType,
  production: boolean,
): { index: number; message: string } | null {
  if (uris.length === 0) return { index: 0, message: 'at least one redirect URI is required' };
  if (uris.length > MAX_REDIRECT_URIS) return { index: MAX_REDIRECT_URIS, message: `at most ${MAX_REDIRECT_URIS}` };
  for (const [index, uri] of uris.entries()) {
    const message = redirectUriProblem(uri, type, production);
    if (message) return { index, message };
  }
  return null;
}

/**
 * The scopes a client may be registered for. Administrators pick among the
 * standard scopes, the operator's custom `scopes` and the resources' scopes;
 * a dynamically registered client (anyone on the internet) only among the
 * standard ones and the resources' scopes, never an operator's custom scope
 * meant for first-party apps.
 */
export function allowedScopes(cfg: OAuthServerConfig, registration: 'admin' | 'dynamic'): Set<string> {
  const names = new Set<string>(STANDARD_SCOPES);
  for (const r of cfg.resources) for (const s of r.scopes) names.add(s);
  if (registration === 'admin') for (const s of cfg.scopes) names.add(s.name);
  return names;
}

/** Scopes outside what this registration may ask for (empty when all are allowed). */
export function unknownScopes(scopes: readonly string[], allowed: Set<string>): string[] {
  return scopes.filter((s) => !allowed.has(s));
}

/** A public client authenticates with nothing (PKCE only); a confidential one with its secret. */
export function authMethodFits(type: ClientType, method: AuthMethod): boolean {
  return type === 'public' ? method === 'none' : method !== 'none';
}

/** Duplicates go, order kept (the stored arrays are what the admin and the client see). */
export const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];
