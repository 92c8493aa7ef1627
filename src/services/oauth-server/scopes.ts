/** Scope sets (RFC 6749 §3.3): parsing, what a client may ask for, and the consent page's wording. */
import { SCOPE_PATTERN, STANDARD_SCOPES } from '../../config/oauth-server.js';
import type { OAuthClientRow } from '../../db/schema.js';
import type { EnabledOAuthServer } from './config.js';

const STANDARD_TEXT: Record<(typeof STANDARD_SCOPES)[number], string> = {
  openid: 'Sign you in with your account',
  email: 'See your email address',
  profile: 'See your basic profile',
  phone: 'See your phone number',
  offline_access: 'Stay connected when you are not using it',
};

/** Space-separated, order-free: the parsed set, or null when a token is malformed. */
export function parseScope(raw: string): string[] | null {
  const parts = raw.split(' ').filter((s) => s.length > 0);
  if (parts.some((s) => !SCOPE_PATTERN.test(s))) return null;
  return [...new Set(parts)].sort();
}

export const formatScope = (scopes: readonly string[]): string => [...new Set(scopes)].sort().join(' ');

const isStandard = (s: string) => (STANDARD_SCOPES as readonly string[]).includes(s);

/**
 * Why a requested scope set is refused, or null when it is allowed: every
 * scope must be one the client was registered for, and a custom scope must be
 * one the provider defines (`oauth_server.scopes`) or the requested resource
 * accepts.
 */
export function scopeRefusal(
  cfg: EnabledOAuthServer,
  client: Pick<OAuthClientRow, 'scopes'>,
  scopes: readonly string[],
  resource: string | null,
): string | null {
  const resourceScopes = resource ? (cfg.resources.find((r) => r.uri === resource)?.scopes ?? []) : [];
  for (const s of scopes) {
    if (!client.scopes.includes(s)) return `scope "${s}" is not allowed for this client`;
    if (isStandard(s)) continue;
    if (cfg.scopes.some((c) => c.name === s) || resourceScopes.includes(s)) continue;
    return `scope "${s}" is not offered${resource ? ' for this resource' : ''}`;
  }
  return null;
}

/** The consent page's lines, one per scope. */
export function describeScopes(cfg: EnabledOAuthServer, scopes: readonly string[]) {
  return scopes.map((name) => ({
    name,
    description:
      (STANDARD_TEXT as Record<string, string>)[name] ??
      cfg.scopes.find((c) => c.name === name)?.description ??
      `Use "${name}"`,
  }));
}

export const isSubset = (a: readonly string[], b: readonly string[]) => a.every((s) => b.includes(s));
