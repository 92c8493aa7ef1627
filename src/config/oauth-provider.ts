/**
 * OAuthProviderConfig (contract §6.1): one
 * element of the `oauth_providers` system-config key. The boot-level schema in
 * `keys.ts` only checks the array and unique ids; every provider is validated
 * here, where it is used, because a provider that fails validation is hidden,
 * not fatal. The schema is strict: an unknown (or misspelt) field makes the
 * provider invalid rather than silently falling back to a default.
 */
import * as z from 'zod/mini';
import { isInternalHost } from './internal-host.js';
import {
  CLIENT_SECRET_ENV_MESSAGE,
  ENV_NAME_MESSAGE,
  CLIENT_SECRET_ENV_PATTERN,
  isServiceEnvName,
  SERVICE_ENV_MESSAGE,
} from './oauth-secret-env.js';

export const PROVIDER_ID_PATTERN = /^[a-z0-9-]{2,40}$/;
export const SECRET_ENV_PATTERN = /^[A-Z][A-Z0-9_]*$/;
const URL_MAX_LENGTH = 2000;

/** `new URL` without throwing (older runtimes lack `URL.parse`). */
export function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/**
 * Absolute https URL; http is accepted outside production (contract §6.1). In
 * production it may not name this machine or a private network: the
 * API fetches these, so an admin could otherwise aim it at internal services.
 */
function endpointUrl(production: boolean) {
  const base = z.string().check(
    z.maxLength(URL_MAX_LENGTH),
    z.refine(
      (v) => {
        const u = parseUrl(v);
        return !!u && (u.protocol === 'https:' || (!production && u.protocol === 'http:'));
      },
      production ? 'must be an absolute https URL' : 'must be an absolute http(s) URL',
    ),
  );
  if (!production) return base;
  return base.check(
    z.refine((v) => {
      const u = parseUrl(v);
      return !u || !isInternalHost(u.hostname);
    }, 'must not name an internal host (loopback, private, link-local or a .local/.internal name)'),
  );
}

/** Absolute URL without a fragment (RFC 6749 §3.1.2); native custom schemes allowed, script schemes refused. */
const redirectUrl = z.string().check(
  z.maxLength(URL_MAX_LENGTH),
  z.refine((v) => {
    const u = parseUrl(v);
    return (
      !!u &&
      !u.hash &&
      !v.includes('#') &&
      !['javascript:', 'data:', 'vbscript:', 'file:', 'blob:'].includes(u.protocol)
    );
  }, 'must be an absolute URL without a fragment'),
);

/** A dotted path into the profile JSON (`sub`, `data.attributes.email`). */
const jsonPath = z.string().check(z.maxLength(200), z.regex(/^[^.\s]+(\.[^.\s]+)*$/, 'must be a dotted JSON path'));

/** RFC 6749 §3.3 scope-token characters. */
const scope = z.string().check(z.regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,200}$/, 'must be a scope token'));

/**
 * The NAME of the env variable holding the client secret, under the rule of
 * `oauth-secret-env.ts`: `*_CLIENT_SECRET` or allowlisted,
 * never a variable the service reads for itself. One issue per name: the later
 * checks stand aside when an earlier one already failed (zod runs them all).
 */
function secretEnvName(allowlist: readonly string[]) {
  const shaped = (v: string) => SECRET_ENV_PATTERN.test(v);
  return z.string().check(
    z.maxLength(200),
    z.regex(SECRET_ENV_PATTERN, ENV_NAME_MESSAGE),
    z.refine(
      (v) => !shaped(v) || !isServiceEnvName(v),
      `${SERVICE_ENV_MESSAGE} (${CLIENT_SECRET_ENV_MESSAGE}, never one the service reads)`,
    ),
    z.refine(
      (v) => !shaped(v) || isServiceEnvName(v) || CLIENT_SECRET_ENV_PATTERN.test(v) || allowlist.includes(v),
      CLIENT_SECRET_ENV_MESSAGE,
    ),
  );
}

function buildSchema(production: boolean, allowlist: readonly string[] = []) {
  return z.strictObject({
    id: z.string().check(z.regex(PROVIDER_ID_PATTERN, 'must match ^[a-z0-9-]{2,40}$')),
    name: z.string().check(z.trim(), z.minLength(1), z.maxLength(80)),
    enabled: z._default(z.boolean(), true),
    clientId: z.string().check(z.minLength(1), z.maxLength(500)),
    clientSecretEnv: secretEnvName(allowlist),
    authorizationUrl: endpointUrl(production),
    tokenUrl: endpointUrl(production),
    userInfoUrl: endpointUrl(production),
    scopes: z._default(z.array(scope).check(z.maxLength(50)), []),
    redirectUri: z.optional(redirectUrl),
    redirectUris: z._default(z.array(redirectUrl).check(z.maxLength(50)), []),
    subjectJsonPath: z._default(jsonPath, 'sub'),
    emailJsonPath: z._default(jsonPath, 'email'),
    emailVerifiedJsonPath: z._default(jsonPath, 'email_verified'),
    nameJsonPath: z.optional(jsonPath),
    allowSignup: z._default(z.boolean(), true),
    accountLinking: z._default(z.enum(['email', 'disabled']), 'email'),
    requireEmailVerified: z._default(z.boolean(), false),
    pkce: z.optional(z.boolean()),
    // Native ID-token sign-in (POST /oauth/:id/id-token): the provider's issuer (its discovery
    // document names the JWKS) or an explicit JWKS URL, and the client ids of the native apps,
    // which the platforms put in `aud` instead of the web clientId.
    issuer: z.optional(endpointUrl(production)),
    jwksUri: z.optional(endpointUrl(production)),
    nativeClientIds: z._default(z.array(z.string().check(z.minLength(1), z.maxLength(500))).check(z.maxLength(20)), []),
  });
}

const schemas = { dev: buildSchema(false), production: buildSchema(true) };
const withAllowlist = new Map<string, ReturnType<typeof buildSchema>>();

/**
 * The provider schema. `allowlist` is `env.oauthClientSecretEnvs`
 * (`OAUTH_CLIENT_SECRET_ENVS`); without it only `*_CLIENT_SECRET` names pass.
 */
export function oauthProviderSchema(production: boolean, allowlist: readonly string[] = []) {
  if (allowlist.length === 0) return production ? schemas.production : schemas.dev;
  const key = `${production}|${allowlist.join(',')}`;
  let schema = withAllowlist.get(key);
  if (!schema) withAllowlist.set(key, (schema = buildSchema(production, allowlist)));
  return schema;
}

export type OAuthProviderConfig = z.output<ReturnType<typeof buildSchema>>;

/** The field names of the contract's table (§6.1; used to strip unknown keys before echoing a stored entry). */
export const PROVIDER_FIELDS = Object.keys(schemas.dev.shape) as (keyof OAuthProviderConfig)[];

/** The public shape of `GET /oauth/providers` and of the start response. */
export const publicProvider = (p: OAuthProviderConfig) => ({ id: p.id, name: p.name, scopes: p.scopes });

/** The `aud` values an ID token of this provider may carry: the web client id and every native one. */
export const idTokenAudiences = (p: Pick<OAuthProviderConfig, 'clientId' | 'nativeClientIds'>) => [
  p.clientId,
  ...p.nativeClientIds,
];

/** True when the scopes make this an OpenID Connect provider (nonce, id_token). */
export const isOidcProvider = (p: Pick<OAuthProviderConfig, 'scopes'>) => p.scopes.includes('openid');
