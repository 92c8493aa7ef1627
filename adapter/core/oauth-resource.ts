/**
 * Resource servers: verification of the provider's RFC 9068 access tokens
 * (`verifyOAuthAccessToken`) and the RFC 9728 protected-resource metadata
 * (`protectedResourceMetadata`) MCP clients discover from the
 * `WWW-Authenticate: Bearer resource_metadata="…"` hint of a 401.
 * Web-standard only (jose + fetch), so it runs on every runtime; the Hono
 * and Express `requireOAuth` / `oauthProtectedResource` wrap it.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import type { FetchLike } from './options.js';

/** Clock skew allowed on `exp`, `nbf` and `iat`, in seconds (the same as the adapter's own tokens). */
export const OAUTH_TOKEN_SKEW_SECONDS = 30;
const WELL_KNOWN = '/.well-known/oauth-protected-resource';

export interface OAuthResourceOptions {
  /** The provider's issuer (`oauth_server.issuer`), compared exactly with the token's `iss`. */
  issuer: string;
  /** This resource server's identifier (RFC 8707 `resource`): the token's `aud` must contain it. */
  resource: string;
  /** Scopes every request needs; a token without one of them gets 403 `insufficient_scope`. */
  scopes?: string[];
  /** The signing keys as a JWKS document (tests, pinned keys); default: fetched from `jwksUrl`. */
  jwks?: JSONWebKeySet;
  /** Where the keys are fetched; default `<issuer>/.well-known/jwks.json`. */
  jwksUrl?: string;
  /** The `fetch` used for the JWKS (a Workers service binding, a test stub); default the global one. */
  fetch?: FetchLike;
  /** The metadata URL named in `WWW-Authenticate`; default the RFC 9728 §3.1 form of `resource`. */
  resourceMetadataUrl?: string;
  /** `resource_name` of the metadata document. */
  resourceName?: string;
}

/** What a verified token says. `payload` keeps every claim for anything not lifted out here. */
export interface OAuthClaims {
  sub: string;
  clientId: string;
  scopes: string[];
  audience: string[];
  issuedAt: number;
  expiresAt: number;
  jti?: string;
  /** The provider's grant id (`gid`), for introspection and revocation. */
  grantId?: string;
  payload: JWTPayload;
}

export type OAuthVerifyResult =
  | { ok: true; claims: OAuthClaims }
  | {
      ok: false;
      status: 401 | 403;
      /** Absent when the request carried no token at all (RFC 6750 §3.1). */
      error?: 'invalid_token' | 'insufficient_scope';
      errorDescription?: string;
      /** The `WWW-Authenticate` header value to answer with. */
      wwwAuthenticate: string;
    };

/** The RFC 9728 metadata document. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported: ['header'];
  resource_name?: string;
}

/**
 * The metadata URL of a resource (RFC 9728 §3.1): `/.well-known/oauth-protected-resource`
 * inserted between the host and the path, the slash right after the host dropped.
 *
 * @example
 * protectedResourceMetadataUrl('https://mcp.example/mcp'); // 'https://mcp.example/.well-known/oauth-protected-resource/mcp'
 */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}${WELL_KNOWN}${path}${url.search}`;
}

/**
 * The path part of `protectedResourceMetadataUrl`, to mount the handler on.
 *
 * @example
 * app.get(protectedResourceMetadataPath('https://mcp.example/mcp'), oauthProtectedResource(opts)); // '/.well-known/oauth-protected-resource/mcp'
 */
export function protectedResourceMetadataPath(resource: string): string {
  return new URL(protectedResourceMetadataUrl(resource)).pathname;
}

/**
 * The RFC 9728 document for `resource`: its authorization server (the issuer),
 * its scopes, bearer tokens in the `Authorization` header only.
 *
 * @example
 * protectedResourceMetadata({ resource: 'https://mcp.example/mcp', issuer: 'https://app.example/auth', scopes: ['mcp'] });
 */
export function protectedResourceMetadata(opts: {
  resource: string;
  issuer: string;
  scopes?: string[];
  resourceName?: string;
}): ProtectedResourceMetadata {
  return {
    resource: opts.resource,
    authorization_servers: [opts.issuer],
    ...(opts.scopes?.length ? { scopes_supported: [...opts.scopes] } : {}),
    bearer_methods_supported: ['header'],
    ...(opts.resourceName ? { resource_name: opts.resourceName } : {}),
  };
}

/**
 * The token of an `Authorization: Bearer <token>` header (scheme case-insensitive,
 * RFC 6750 §2.1); null for no header or another scheme.
 *
 * @example
 * readBearerToken(request.headers.get('authorization'));
 */
export function readBearerToken(authorization: string | null | undefined): string | null {
  const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization ?? '');
  return m ? m[1]! : null;
}

/** RFC 6750 §3 quoted-string: the descriptions here never carry `"` or `\`, but names could. */
const quote = (value: string) => `"${value.replace(/["\\]/g, '')}"`;

function challenge(opts: OAuthResourceOptions, params: Record<string, string | undefined>): string {
  const parts = [`resource_metadata=${quote(opts.resourceMetadataUrl ?? protectedResourceMetadataUrl(opts.resource))}`];
  for (const [k, v] of Object.entries(params)) if (v !== undefined) parts.push(`${k}=${quote(v)}`);
  return `Bearer ${parts.join(', ')}`;
}

function refuse(
  opts: OAuthResourceOptions,
  status: 401 | 403,
  error: 'invalid_token' | 'insufficient_scope' | undefined,
  errorDescription?: string,
): OAuthVerifyResult {
  const scope = opts.scopes?.length ? opts.scopes.join(' ') : undefined;
  const wwwAuthenticate = challenge(opts, { error, error_description: errorDescription, scope });
  return { ok: false, status, ...(error ? { error, errorDescription } : {}), wwwAuthenticate };
}

/** One key resolver per options object: the JWKS is fetched and cached once, not per request. */
const KEYS = new WeakMap<OAuthResourceOptions, JWTVerifyGetKey>();

function keysFor(opts: OAuthResourceOptions): JWTVerifyGetKey {
  let keys = KEYS.get(opts);
  if (!keys) {
    if (opts.jwks) keys = createLocalJWKSet(opts.jwks);
    else {
      const url = new URL(opts.jwksUrl ?? `${opts.issuer.replace(/\/+$/, '')}/.well-known/jwks.json`);
      const f = opts.fetch;
      keys = createRemoteJWKSet(url, {
        timeoutDuration: 10_000,
        ...(f ? { [customFetch]: (u: string, init: RequestInit) => f(u, init) } : {}),
      });
    }
    KEYS.set(opts, keys);
  }
  return keys;
}

/** The resource and its URL-normalized form (`https://a` → `https://a/`, as clients send it). */
function audiencesOf(resource: string): string[] {
  try {
    const href = new URL(resource).href;
    return href === resource ? [resource] : [resource, href];
  } catch {
    return [resource];
  }
}

/**
 * Verifies a provider access token for this resource: RS256 only, header
 * `typ: at+jwt` (RFC 9068 §4, so an svc session token never passes), `iss`
 * exactly the issuer, `aud` containing the resource, `exp`/`nbf`/`iat` with
 * 30 s skew, `sub`, `client_id` and `scope` present, and every required scope
 * granted. Never throws: a missing token → 401 without an error code, a bad
 * one → 401 `invalid_token`, missing scopes → 403 `insufficient_scope`;
 * each with the `WWW-Authenticate` value to send (RFC 9728 §5.1, RFC 6750 §3).
 *
 * @example
 * const opts = { issuer: 'https://app.example/auth', resource: 'https://mcp.example/mcp', scopes: ['mcp'] };
 * const result = await verifyOAuthAccessToken(readBearerToken(req.headers.get('authorization')), opts);
 * if (!result.ok) return new Response(null, { status: result.status, headers: { 'www-authenticate': result.wwwAuthenticate } });
 */
export async function verifyOAuthAccessToken(
  token: string | null | undefined,
  opts: OAuthResourceOptions,
): Promise<OAuthVerifyResult> {
  if (!token) return refuse(opts, 401, undefined);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keysFor(opts), {
      algorithms: ['RS256'],
      typ: 'at+jwt',
      issuer: opts.issuer,
      audience: audiencesOf(opts.resource),
      clockTolerance: OAUTH_TOKEN_SKEW_SECONDS,
      requiredClaims: ['exp', 'iat', 'sub', 'client_id', 'scope'],
    }));
  } catch {
    // Which check failed stays out of the answer: the client's remedy is the same (a new token).
    return refuse(opts, 401, 'invalid_token', 'The access token is invalid, expired or not for this resource');
  }
  const nowSeconds = Math.floor(Date.now() / 1000);
  const { sub, client_id: clientId, scope, iat, exp } = payload;
  if (
    typeof sub !== 'string' ||
    !sub ||
    typeof clientId !== 'string' ||
    !clientId ||
    typeof scope !== 'string' ||
    typeof iat !== 'number' ||
    typeof exp !== 'number' ||
    iat > nowSeconds + OAUTH_TOKEN_SKEW_SECONDS
  )
    return refuse(opts, 401, 'invalid_token', 'The access token is invalid, expired or not for this resource');
  const scopes = scope.split(' ').filter(Boolean);
  const missing = (opts.scopes ?? []).filter((s) => !scopes.includes(s));
  if (missing.length)
    return refuse(opts, 403, 'insufficient_scope', `The access token lacks scope: ${missing.join(' ')}`);
  const aud = payload.aud;
  return {
    ok: true,
    claims: {
      sub,
      clientId,
      scopes,
      audience: Array.isArray(aud) ? aud : aud ? [aud] : [],
      issuedAt: iat,
      expiresAt: exp,
      ...(typeof payload.jti === 'string' ? { jti: payload.jti } : {}),
      ...(typeof payload.gid === 'string' ? { grantId: payload.gid } : {}),
      payload,
    },
  };
}

/** The JSON body of a refusal (RFC 6750 §3.1 codes; no token at all → `unauthorized`). */
export function oauthRefusalBody(result: Extract<OAuthVerifyResult, { ok: false }>): {
  error: string;
  error_description: string;
} {
  return {
    error: result.error ?? 'unauthorized',
    error_description: result.errorDescription ?? 'A bearer access token is required',
  };
}

/**
 * `new Error` at construction when the options cannot work (the adapters call
 * it once, so a misconfiguration fails at start-up, naming the option).
 */
export function checkOAuthResourceOptions(opts: OAuthResourceOptions, caller: string): void {
  const url = (name: string, value: unknown) => {
    try {
      if (typeof value !== 'string') throw new Error();
      new URL(value);
    } catch {
      throw new Error(`${caller}: \`${name}\` must be an absolute URL`);
    }
  };
  url('issuer', opts.issuer);
  url('resource', opts.resource);
  if (opts.resource.includes('#')) throw new Error(`${caller}: \`resource\` must not have a fragment (RFC 8707)`);
  if (opts.jwksUrl !== undefined) url('jwksUrl', opts.jwksUrl);
  if (opts.resourceMetadataUrl !== undefined) url('resourceMetadataUrl', opts.resourceMetadataUrl);
  if (
    opts.scopes !== undefined &&
    (!Array.isArray(opts.scopes) || opts.scopes.some((s) => !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(s)))
  )
    throw new Error(`${caller}: \`scopes\` must be a list of scope tokens (RFC 6749 §3.3)`);
}
