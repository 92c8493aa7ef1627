/**
 * The `oauth_server` system-config key: svc as an OAuth 2.1 / OpenID Connect
 * provider for a team's other apps and MCP servers (docs/oauth-provider.md).
 * Off by default. `issuer` is the public URL where the adapter is mounted
 * (e.g. `https://app.example/auth`): the `iss` of every token and the base of
 * every endpoint in the metadata. `resources` lists the RFC 8707 resources
 * (e.g. an MCP server's URL) access tokens may be issued for, with the
 * scopes each accepts; a token names exactly one resource.
 */
import * as z from 'zod/mini';

/** The scopes every provider answers (OIDC Core §5.4 plus `offline_access`, OIDC Core §11). */
export const STANDARD_SCOPES = ['openid', 'email', 'profile', 'phone', 'offline_access'] as const;

/** A custom scope: `mcp:tools`, `notes.read` (no spaces, no quotes, RFC 6749 §3.3). */
export const SCOPE_PATTERN = /^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/;

const scopeName = z
  .string()
  .check(z.regex(SCOPE_PATTERN, 'must be 1-64 printable characters without space, quote or backslash'));

const absoluteUrl = (what: string) =>
  z.string().check(
    z.maxLength(2048),
    z.refine((v) => {
      try {
        const u = new URL(v);
        return (u.protocol === 'https:' || u.protocol === 'http:') && !u.hash && !u.username && !u.password;
      } catch {
        return false;
      }
    }, `${what} must be an absolute http(s) URL without fragment or credentials`),
  );

export const oauthResourceSchema = z.object({
  /** The resource indicator clients send (RFC 8707 §2), compared exactly. */
  uri: absoluteUrl('resource uri'),
  name: z.string().check(z.minLength(1), z.maxLength(100)),
  /** Scopes this resource accepts (beyond the standard ones). */
  scopes: z.array(scopeName).check(z.maxLength(50)),
});
export type OAuthResource = z.infer<typeof oauthResourceSchema>;

export const oauthServerSchema = z.object({
  enabled: z.boolean(),
  /** Public URL of the adapter mount; required when enabled (checked on PATCH and at boot). */
  issuer: z.nullable(absoluteUrl('issuer')),
  /** Where the adapter sends a browser with no session: a path on the app or an absolute URL; `return_to` is appended. */
  loginUrl: z.string().check(z.minLength(1), z.maxLength(2048)),
  /** Custom scopes with the text the consent page shows for each. */
  scopes: z
    .array(z.object({ name: scopeName, description: z.string().check(z.minLength(1), z.maxLength(200)) }))
    .check(z.maxLength(100)),
  resources: z.array(oauthResourceSchema).check(z.maxLength(100)),
  accessTokenTtlSeconds: z.number().check(z.int(), z.gte(60), z.lte(86400)),
  refreshTokenTtlSeconds: z.number().check(z.int(), z.gte(300), z.lte(365 * 86400)),
  /** RFC 7591 dynamic client registration: off unless an operator turns it on. */
  dynamicRegistration: z.object({
    enabled: z.boolean(),
    /** Registrations per client IP per hour. */
    perIpPerHour: z.number().check(z.int(), z.gte(1), z.lte(1000)),
    /** A dynamically registered client with no token request for this long is deleted. */
    unusedExpiryDays: z.number().check(z.int(), z.gte(1), z.lte(365)),
  }),
});
export type OAuthServerConfig = z.infer<typeof oauthServerSchema>;

export const OAUTH_SERVER_OFF: OAuthServerConfig = {
  enabled: false,
  issuer: null,
  loginUrl: '/',
  scopes: [],
  resources: [],
  accessTokenTtlSeconds: 900,
  refreshTokenTtlSeconds: 30 * 86400,
  dynamicRegistration: { enabled: false, perIpPerHour: 10, unusedExpiryDays: 30 },
};
