/**
 * `parseEnv(record)` (with its value parsers in env-values.ts) is the only
 * place that names environment variables (contract §0.6, §1.1). It gets
 * `process.env` on Node/Bun and the bindings on Workers, validates everything
 * once and fails with a `ConfigError` naming the variable. Config seeds
 * (contract §6) are read later by the system-config bootstrap.
 */
import { ConfigError } from './config-error.js';
import { parseClientSecretEnvAllowlist } from './oauth-secret-env.js';
import { secret, secretsFor, type ApiSecrets } from './secrets.js';
import {
  EnvChecks,
  parseClientPlaceHeaders,
  parseDelivery,
  parseFloorMs,
  parseIssuer,
  parseOrigins,
  parseTrustProxy,
} from './env-values.js';

export { secretsFor, type ApiSecrets } from './secrets.js';
export { parseIssuer } from './env-values.js';

export type EnvRecord = Record<string, string | undefined>;

export interface ProductionKeysEnv {
  activeKid: string;
  privatePem: string;
  publicKeysJson: string;
}

/** How the API delivers codes and links when the caller did not ask for external delivery. */
export interface DeliveryEnv {
  mode: 'console' | 'webhook' | 'none';
  webhookUrl: string | null;
  webhookSecret: string | null;
}

export type TrustProxy = { mode: 'connection' } | { mode: 'xff'; hops: number };

export interface ApiEnv {
  issuer: string;
  production: boolean;
  databaseUrl: string;
  databaseAuthToken: string | undefined;
  appId: string | null;
  appOrigins: string[];
  trustProxy: TrustProxy;
  /**
   * `CLIENT_PLACE_HEADER`: request headers (lower case, comma-separated, at most 3) that the operator's edge
   * sets to the client's coarse place, such as `cf-ipcity,cf-ipcountry` or `x-vercel-ip-country`. Read only on a
   * call without a valid service token (behind an adapter they would place the adapter); empty: not read.
   */
  clientPlaceHeaders: string[];
  loginResponseFloorMs: number;
  rateLimitStore: 'database' | 'memory';
  /** `RATE_LIMIT_IPV6_PREFIX`: per-IP limiters count an IPv6 client by this many leading bits (32–128, default 64). */
  rateLimitIpv6PrefixBits: number;
  disableRateLimits: boolean;
  ownerEmails: string[];
  refreshTokenBcryptCost: number;
  /** A request still unanswered after this many ms gets 503 `service_unavailable` (0: no deadline). */
  requestDeadlineMs: number;
  /** One database call over HTTP (sqld, Turso) is abandoned after this many ms. */
  dbTimeoutMs: number;
  /** `WEBHOOK_TIMEOUT_MS`: one event-webhook delivery attempt is abandoned after this many ms (default 10000). */
  webhookTimeoutMs: number;
  /** Serve `GET /openapi.json` (`OPENAPI_ENABLED`; default: on outside production, off in production). */
  openapiEnabled: boolean;
  delivery: DeliveryEnv;
  /**
   * `OAUTH_CLIENT_SECRET_ENVS`: names beyond `*_CLIENT_SECRET` a provider's `clientSecretEnv` may use
   * (config/oauth-secret-env.ts).
   */
  oauthClientSecretEnvs: string[];
  secrets: ApiSecrets;
  /**
   * `GENERATE_DEV_SECRETS=true`: outside production, an API without
   * `API_SERVICE_TOKEN` may generate its own development token even when it
   * is reachable from other machines (a Worker). Refused in production.
   */
  generateDevSecrets: boolean;
  /** Present in production only (development uses the persisted `dev-main` key). */
  productionKeys: ProductionKeysEnv | null;
  /** Non-fatal remarks for the operator (dev fallbacks). Never contains a secret. */
  warnings: string[];
  /** The raw record: config seeds and provider `clientSecretEnv` lookups read from it. */
  raw: EnvRecord;
}

/**
 * What `parseEnv` returns: the environment before the boot resolves its
 * secrets. `secrets` is null outside production when `API_SERVICE_TOKEN` is
 * unset: `createAuthApi` then uses the random development token stored in the
 * database (`crypto/dev-secrets.ts`) — there is no constant fallback.
 */
export type ParsedEnv = Omit<ApiEnv, 'secrets'> & { secrets: ApiSecrets | null };

export const DEFAULT_DATABASE_URL = 'file:./.data/svc.db';
export const DEFAULT_BCRYPT_COST = 4;
const KID_PATTERN = /^[A-Za-z0-9_]{1,64}$/;

/**
 * Parses the API's environment. Every problem is collected and reported in
 * one `ConfigError` (one line per variable), so a newcomer fixes them in one
 * attempt; secrets and production keys still fail loudly.
 */
export function parseEnv(env: EnvRecord): ParsedEnv {
  const c = new EnvChecks(env);
  // The groups run in the order of their variables in the combined error.
  const { serviceToken, generateDevSecrets, warnings } = checkSecrets(c);
  const issuer = checkIssuer(c);
  const productionKeys = readProductionKeys(c);
  const rateLimits = readRateLimits(c);
  const timings = readCostAndTimeouts(c);
  const openapiEnabled = readOpenapiEnabled(c);
  const databaseUrl = readDatabaseUrl(c);
  const appOrigins = c.check(() => parseOrigins(c.list('APP_ORIGINS')), []);
  const trustProxy = c.check(() => parseTrustProxy(c.str('TRUST_PROXY')), { mode: 'connection' } as TrustProxy);
  const clientPlaceHeaders = c.check(() => parseClientPlaceHeaders(c.list('CLIENT_PLACE_HEADER')), []);
  const loginResponseFloorMs = c.check(() => parseFloorMs(env['LOGIN_RESPONSE_FLOOR_MS']), 0);
  const delivery = c.check(() => parseDelivery(env, c.production), {
    mode: 'none',
    webhookUrl: null,
    webhookSecret: null,
  });
  const oauthClientSecretEnvs = c.check(() => parseSecretEnvAllowlist(c.str('OAUTH_CLIENT_SECRET_ENVS')), []);
  if (c.issues.length) throw ConfigError.combine(c.issues);
  const secrets = serviceToken ? secretsFor(env, serviceToken) : null;

  return {
    issuer,
    production: c.production,
    databaseUrl,
    databaseAuthToken: c.str('DATABASE_AUTH_TOKEN'),
    appId: c.str('APP_ID') ?? null,
    appOrigins,
    trustProxy,
    clientPlaceHeaders,
    loginResponseFloorMs,
    ...rateLimits,
    ownerEmails: c.list('OWNER_EMAIL').map((e) => e.toLowerCase()),
    ...timings,
    openapiEnabled,
    delivery,
    oauthClientSecretEnvs,
    secrets,
    generateDevSecrets,
    productionKeys,
    warnings,
    raw: env,
  };
}

/** The secrets are length-checked here, with every other problem; secretsFor reads them once the env is valid. */
function checkSecrets(c: EnvChecks): {
  serviceToken: string | undefined;
  generateDevSecrets: boolean;
  warnings: string[];
} {
  const warnings: string[] = [];
  const serviceToken = c.check(() => secret(c.env, 'API_SERVICE_TOKEN'), undefined);
  if (!serviceToken && c.production && !c.failed('API_SERVICE_TOKEN'))
    c.fail(
      'API_SERVICE_TOKEN',
      'is required in production (wrangler secret put API_SERVICE_TOKEN on Workers; at least 32 random characters)',
    );
  const generateRaw = c.str('GENERATE_DEV_SECRETS');
  if (generateRaw !== undefined && generateRaw !== 'true' && generateRaw !== 'false')
    c.fail('GENERATE_DEV_SECRETS', 'must be true or false');
  if (generateRaw === 'true' && c.production) c.fail('GENERATE_DEV_SECRETS', 'must not be true in production');
  const optionalSecret = (name: string) => c.check(() => secret(c.env, name), undefined);
  const oauthState = optionalSecret('OAUTH_STATE_SECRET');
  if (!oauthState && c.production && c.str('OAUTH_STATE_SECRET') === undefined)
    c.fail('OAUTH_STATE_SECRET', 'is required in production');
  // The API is bearer-only and sets no cookie; the spec's cookies are the adapter's,
  // signed with its `cookieSecret`. A key that nothing uses would look like protection.
  if (c.str('COOKIE_SIGNING_KEY') !== undefined)
    c.fail(
      'COOKIE_SIGNING_KEY',
      'is not used by the auth API, which sets no cookies: give this secret to the adapter as its cookieSecret option (COOKIE_SECRET in the examples) and unset COOKIE_SIGNING_KEY',
    );
  optionalSecret('REFRESH_TOKEN_LOOKUP_SECRET');
  optionalSecret('TOTP_SECRET_ENCRYPTION_KEY');
  optionalSecret('DECOY_SUBJECT_SECRET');
  if (!serviceToken && !c.production) {
    warnings.push(
      'API_SERVICE_TOKEN is unset: using the random development token stored in this database (set API_SERVICE_TOKEN before deploying)',
    );
  }
  return { serviceToken, generateDevSecrets: generateRaw === 'true', warnings };
}

function checkIssuer(c: EnvChecks): string {
  const issuer = c.check(() => parseIssuer(c.str('ISSUER')), 'http://invalid.invalid');
  if (c.production && !issuer.startsWith('https://') && !c.failed('ISSUER'))
    c.fail('ISSUER', 'must use https in production');
  return issuer;
}

/** The JWKS signing key from the environment: production only (development uses the persisted `dev-main` key). */
function readProductionKeys(c: EnvChecks): ProductionKeysEnv | null {
  if (!c.production) return null;
  const activeKid = c.str('SVC_JWKS_ACTIVE_KID');
  const publicKeysJson = c.str('SVC_JWKS_PUBLIC_KEYS');
  if (!publicKeysJson) c.fail('SVC_JWKS_PUBLIC_KEYS', 'is required in production');
  if (!activeKid) c.fail('SVC_JWKS_ACTIVE_KID', 'is required in production');
  else if (!KID_PATTERN.test(activeKid)) c.fail('SVC_JWKS_ACTIVE_KID', 'must match ^[A-Za-z0-9_]{1,64}$');
  else {
    const privateName = `SVC_JWKS_KEY_${activeKid}_PRIVATE`;
    const privatePem = c.str(privateName);
    if (!privatePem) c.fail(privateName, 'is required in production (PKCS#8 PEM of the active key)');
    else if (publicKeysJson) return { activeKid, privatePem: privatePem.replace(/\\n/g, '\n'), publicKeysJson };
  }
  return null;
}

function readRateLimits(
  c: EnvChecks,
): Pick<ApiEnv, 'disableRateLimits' | 'rateLimitStore' | 'rateLimitIpv6PrefixBits'> {
  const disableRateLimits = c.str('DISABLE_AUTH_RATE_LIMITS') === 'true';
  if (disableRateLimits && c.production) c.fail('DISABLE_AUTH_RATE_LIMITS', 'must not be true in production');

  const storeRaw = c.str('RATE_LIMIT_STORE') ?? 'database';
  const rateLimitStore = storeRaw === 'memory' ? 'memory' : 'database';
  if (storeRaw !== rateLimitStore) c.fail('RATE_LIMIT_STORE', 'must be database or memory');

  // One subscriber holds at least a /64; 128 keys the whole address.
  const prefixRaw = c.str('RATE_LIMIT_IPV6_PREFIX');
  const rateLimitIpv6PrefixBits = prefixRaw === undefined ? 64 : /^\d{1,3}$/.test(prefixRaw) ? Number(prefixRaw) : NaN;
  if (!(rateLimitIpv6PrefixBits >= 32 && rateLimitIpv6PrefixBits <= 128))
    c.fail('RATE_LIMIT_IPV6_PREFIX', 'must be an integer from 32 to 128');
  return { rateLimitStore, rateLimitIpv6PrefixBits, disableRateLimits };
}

function readCostAndTimeouts(
  c: EnvChecks,
): Pick<ApiEnv, 'refreshTokenBcryptCost' | 'requestDeadlineMs' | 'dbTimeoutMs' | 'webhookTimeoutMs'> {
  const costRaw = c.str('REFRESH_TOKEN_BCRYPT_COST');
  const cost = costRaw === undefined ? DEFAULT_BCRYPT_COST : Number(costRaw);
  if (!Number.isInteger(cost) || cost < 4 || cost > 15)
    c.fail('REFRESH_TOKEN_BCRYPT_COST', 'must be an integer from 4 to 15');

  const millis = (name: string, fallback: number, min: number) => {
    const raw = c.str(name);
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(n) || (n !== 0 && n < min) || n > 600_000)
      c.fail(name, `must be 0 or an integer number of milliseconds from ${min} to 600000`);
    return n;
  };
  const requestDeadlineMs = millis('REQUEST_DEADLINE_MS', 10_000, 100);
  const dbTimeoutMs = millis('DB_TIMEOUT_MS', 5_000, 50);
  const webhookRaw = c.str('WEBHOOK_TIMEOUT_MS');
  const webhookTimeoutMs = webhookRaw === undefined ? 10_000 : Number(webhookRaw);
  if (!Number.isInteger(webhookTimeoutMs) || webhookTimeoutMs < 100 || webhookTimeoutMs > 60_000)
    c.fail('WEBHOOK_TIMEOUT_MS', 'must be an integer number of milliseconds from 100 to 60000');
  return { refreshTokenBcryptCost: cost, requestDeadlineMs, dbTimeoutMs, webhookTimeoutMs };
}

/** The API description is harmless but still a map for a prober: production opts in. */
function readOpenapiEnabled(c: EnvChecks): boolean {
  const openapiRaw = c.str('OPENAPI_ENABLED');
  if (openapiRaw !== undefined && openapiRaw !== 'true' && openapiRaw !== 'false')
    c.fail('OPENAPI_ENABLED', 'must be true or false');
  return openapiRaw === undefined ? !c.production : openapiRaw === 'true';
}

function readDatabaseUrl(c: EnvChecks): string {
  const databaseUrl = c.str('DATABASE_URL') ?? DEFAULT_DATABASE_URL;
  if (!/^(file:|libsql:|https?:|wss?:)/.test(databaseUrl) && databaseUrl !== ':memory:') {
    c.fail('DATABASE_URL', 'must be file:, :memory:, libsql:, http(s): or ws(s):');
  }
  return databaseUrl;
}

function parseSecretEnvAllowlist(value: string | undefined): string[] {
  try {
    return parseClientSecretEnvAllowlist(value);
  } catch (err) {
    throw new ConfigError('OAUTH_CLIENT_SECRET_ENVS', (err as Error).message);
  }
}
