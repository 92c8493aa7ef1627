/**
 * `parseEnv(record)` is the only place that names environment variables
 * (contract §0.6, §1.1). It gets `process.env` on Node/Bun and the bindings on
 * Workers, validates everything once and fails with a `ConfigError` naming the
 * variable. Config seeds (contract §6) are read later by the system-config bootstrap.
 */
import { ConfigError } from './config-error.js';
import { parseClientSecretEnvAllowlist } from './oauth-secret-env.js';
import { secret, secretsFor, type ApiSecrets } from './secrets.js';

export { secretsFor, type ApiSecrets } from './secrets.js';

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
  /** Serve `GET /openapi.json` (`OPENAPI_ENABLED`; default: on outside production, off in production). */
  openapiEnabled: boolean;
  delivery: DeliveryEnv;
  /** `OAUTH_CLIENT_SECRET_ENVS`: names beyond `*_CLIENT_SECRET` a provider's `clientSecretEnv` may use (config/oauth-secret-env.ts). */
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

const str = (env: EnvRecord, name: string): string | undefined => {
  const v = env[name];
  if (v === undefined) return undefined;
  const t = v.trim();
  return t === '' ? undefined : t;
};

export function parseIssuer(value: string | undefined): string {
  if (!value) throw new ConfigError('ISSUER', 'is required (the public base URL of the auth API)');
  const trimmed = value.endsWith('/') ? value.slice(0, -1) : value;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new ConfigError('ISSUER', 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('ISSUER', 'must be an absolute http(s) URL');
  if (trimmed.endsWith('/')) throw new ConfigError('ISSUER', 'must not end with a slash');
  return trimmed;
}

function parseTrustProxy(value: string | undefined): TrustProxy {
  if (!value) return { mode: 'connection' };
  const m = /^xff:(\d{1,2})$/.exec(value);
  if (!m || Number(m[1]) < 1) throw new ConfigError('TRUST_PROXY', 'must be unset or xff:<n> with n ≥ 1');
  return { mode: 'xff', hops: Number(m[1]) };
}

function parseFloorMs(value: string | undefined): number {
  if (value === undefined) return 250;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 && value.trim() !== '' ? Math.floor(n) : 250;
}

/**
 * `DELIVERY_MODE` = console (default outside production; refused in production),
 * webhook (needs `DELIVERY_WEBHOOK_URL` and `DELIVERY_WEBHOOK_SECRET`) or none
 * (default in production: only external delivery through the adapter).
 */
function parseDelivery(env: EnvRecord, production: boolean): DeliveryEnv {
  const mode = str(env, 'DELIVERY_MODE') ?? (production ? 'none' : 'console');
  if (mode !== 'console' && mode !== 'webhook' && mode !== 'none') throw new ConfigError('DELIVERY_MODE', 'must be console, webhook or none');
  if (mode === 'console' && production) throw new ConfigError('DELIVERY_MODE', 'console prints codes and links and is refused in production');
  if (mode !== 'webhook') return { mode, webhookUrl: null, webhookSecret: null };
  const url = str(env, 'DELIVERY_WEBHOOK_URL');
  if (!url) throw new ConfigError('DELIVERY_WEBHOOK_URL', 'is required when DELIVERY_MODE=webhook');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('DELIVERY_WEBHOOK_URL', 'must be an absolute http(s) URL');
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && !production)) {
    throw new ConfigError('DELIVERY_WEBHOOK_URL', production ? 'must use https in production' : 'must be an absolute http(s) URL');
  }
  const webhookSecret = secret(env, 'DELIVERY_WEBHOOK_SECRET');
  if (!webhookSecret) throw new ConfigError('DELIVERY_WEBHOOK_SECRET', 'is required when DELIVERY_MODE=webhook');
  return { mode, webhookUrl: parsed.toString(), webhookSecret };
}

/**
 * Parses the API's environment. Every problem is collected and reported in
 * one `ConfigError` (one line per variable), so a newcomer fixes them in one
 * attempt; secrets and production keys still fail loudly.
 */
export function parseEnv(env: EnvRecord): ParsedEnv {
  const issues: ConfigError[] = [];
  /** Runs one check; a ConfigError is recorded and `fallback` stands in so the other checks still run. */
  const check = <T>(fn: () => T, fallback: T): T => {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      issues.push(err);
      return fallback;
    }
  };
  const fail = (key: string, problem: string) => issues.push(new ConfigError(key, problem));
  const production = str(env, 'NODE_ENV') === 'production';
  const warnings: string[] = [];
  const serviceToken = check(() => secret(env, 'API_SERVICE_TOKEN'), undefined);
  if (!serviceToken && production && !issues.some((i) => i.key === 'API_SERVICE_TOKEN')) fail('API_SERVICE_TOKEN', 'is required in production (wrangler secret put API_SERVICE_TOKEN on Workers; at least 32 random characters)');
  const generateRaw = str(env, 'GENERATE_DEV_SECRETS');
  if (generateRaw !== undefined && generateRaw !== 'true' && generateRaw !== 'false') fail('GENERATE_DEV_SECRETS', 'must be true or false');
  if (generateRaw === 'true' && production) fail('GENERATE_DEV_SECRETS', 'must not be true in production');
  const optionalSecret = (name: string) => check(() => secret(env, name), undefined);
  const oauthState = optionalSecret('OAUTH_STATE_SECRET');
  if (!oauthState && production && str(env, 'OAUTH_STATE_SECRET') === undefined) fail('OAUTH_STATE_SECRET', 'is required in production');
  optionalSecret('COOKIE_SIGNING_KEY'); // accepted and unused (contract §1.1), but still length-checked
  // Length-checked here, with every other problem; secretsFor reads them once the env is valid.
  optionalSecret('REFRESH_TOKEN_LOOKUP_SECRET');
  optionalSecret('TOTP_SECRET_ENCRYPTION_KEY');
  optionalSecret('DECOY_SUBJECT_SECRET');
  if (!serviceToken && !production) {
    warnings.push('API_SERVICE_TOKEN is unset: using the random development token stored in this database (set API_SERVICE_TOKEN before deploying)');
  }

  const issuer = check(() => parseIssuer(str(env, 'ISSUER')), 'http://invalid.invalid');
  if (production && !issuer.startsWith('https://') && !issues.some((i) => i.key === 'ISSUER')) fail('ISSUER', 'must use https in production');

  let productionKeys: ProductionKeysEnv | null = null;
  if (production) {
    const activeKid = str(env, 'SVC_JWKS_ACTIVE_KID');
    const publicKeysJson = str(env, 'SVC_JWKS_PUBLIC_KEYS');
    if (!publicKeysJson) fail('SVC_JWKS_PUBLIC_KEYS', 'is required in production');
    if (!activeKid) fail('SVC_JWKS_ACTIVE_KID', 'is required in production');
    else if (!KID_PATTERN.test(activeKid)) fail('SVC_JWKS_ACTIVE_KID', 'must match ^[A-Za-z0-9_]{1,64}$');
    else {
      const privateName = `SVC_JWKS_KEY_${activeKid}_PRIVATE`;
      const privatePem = str(env, privateName);
      if (!privatePem) fail(privateName, 'is required in production (PKCS#8 PEM of the active key)');
      else if (publicKeysJson) productionKeys = { activeKid, privatePem: privatePem.replace(/\\n/g, '\n'), publicKeysJson };
    }
  }

  const disableRateLimits = str(env, 'DISABLE_AUTH_RATE_LIMITS') === 'true';
  if (disableRateLimits && production) fail('DISABLE_AUTH_RATE_LIMITS', 'must not be true in production');

  const storeRaw = str(env, 'RATE_LIMIT_STORE') ?? 'database';
  const store = storeRaw === 'memory' ? 'memory' : 'database';
  if (storeRaw !== store) fail('RATE_LIMIT_STORE', 'must be database or memory');

  // One subscriber holds at least a /64; 128 keys the whole address.
  const prefixRaw = str(env, 'RATE_LIMIT_IPV6_PREFIX');
  const rateLimitIpv6PrefixBits = prefixRaw === undefined ? 64 : /^\d{1,3}$/.test(prefixRaw) ? Number(prefixRaw) : NaN;
  if (!(rateLimitIpv6PrefixBits >= 32 && rateLimitIpv6PrefixBits <= 128)) fail('RATE_LIMIT_IPV6_PREFIX', 'must be an integer from 32 to 128');

  const costRaw = str(env, 'REFRESH_TOKEN_BCRYPT_COST');
  const cost = costRaw === undefined ? DEFAULT_BCRYPT_COST : Number(costRaw);
  if (!Number.isInteger(cost) || cost < 4 || cost > 15) fail('REFRESH_TOKEN_BCRYPT_COST', 'must be an integer from 4 to 15');

  const millis = (name: string, fallback: number, min: number) => {
    const raw = str(env, name);
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(n) || (n !== 0 && n < min) || n > 600_000) fail(name, `must be 0 or an integer number of milliseconds from ${min} to 600000`);
    return n;
  };
  const requestDeadlineMs = millis('REQUEST_DEADLINE_MS', 10_000, 100);
  const dbTimeoutMs = millis('DB_TIMEOUT_MS', 5_000, 50);

  // The API description is harmless but still a map for a prober: production opts in.
  const openapiRaw = str(env, 'OPENAPI_ENABLED');
  if (openapiRaw !== undefined && openapiRaw !== 'true' && openapiRaw !== 'false') fail('OPENAPI_ENABLED', 'must be true or false');
  const openapiEnabled = openapiRaw === undefined ? !production : openapiRaw === 'true';

  const databaseUrl = str(env, 'DATABASE_URL') ?? DEFAULT_DATABASE_URL;
  if (!/^(file:|libsql:|https?:|wss?:)/.test(databaseUrl) && databaseUrl !== ':memory:') {
    fail('DATABASE_URL', 'must be file:, :memory:, libsql:, http(s): or ws(s):');
  }

  const list = (name: string) =>
    (str(env, name) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);

  const appOrigins = check(
    () =>
      list('APP_ORIGINS').map((o) => {
        try {
          return new URL(o).origin;
        } catch {
          throw new ConfigError('APP_ORIGINS', 'must be a comma-separated list of origins');
        }
      }),
    [],
  );
  const trustProxy = check(() => parseTrustProxy(str(env, 'TRUST_PROXY')), { mode: 'connection' } as TrustProxy);
  const loginResponseFloorMs = check(() => parseFloorMs(env['LOGIN_RESPONSE_FLOOR_MS']), 0);
  const delivery = check(() => parseDelivery(env, production), { mode: 'none', webhookUrl: null, webhookSecret: null });
  const oauthClientSecretEnvs = check(() => {
    try {
      return parseClientSecretEnvAllowlist(str(env, 'OAUTH_CLIENT_SECRET_ENVS'));
    } catch (err) {
      throw new ConfigError('OAUTH_CLIENT_SECRET_ENVS', (err as Error).message);
    }
  }, []);
  if (issues.length) throw ConfigError.combine(issues);
  const secrets = serviceToken ? secretsFor(env, serviceToken) : null;

  return {
    issuer,
    production,
    databaseUrl,
    databaseAuthToken: str(env, 'DATABASE_AUTH_TOKEN'),
    appId: str(env, 'APP_ID') ?? null,
    appOrigins,
    trustProxy,
    loginResponseFloorMs,
    rateLimitStore: store,
    rateLimitIpv6PrefixBits,
    disableRateLimits,
    ownerEmails: list('OWNER_EMAIL').map((e) => e.toLowerCase()),
    refreshTokenBcryptCost: cost,
    requestDeadlineMs,
    dbTimeoutMs,
    openapiEnabled,
    delivery,
    oauthClientSecretEnvs,
    secrets,
    generateDevSecrets: generateRaw === 'true',
    productionKeys,
    warnings,
    raw: env,
  };
}
