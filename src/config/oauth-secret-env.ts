/**
 * Which env variable an OAuth provider may name as `clientSecretEnv` (so an
 * admin cannot point it at a service secret). The token exchange posts the value of that variable to the
 * provider's `tokenUrl`, which an `admin:write` user chooses: naming
 * `API_SERVICE_TOKEN` there would mail the service's own key to them. So a
 * provider may name only a variable meant for it:
 *
 * - `^[A-Z][A-Z0-9_]{0,120}_CLIENT_SECRET$`, or a name the operator lists in
 *   `OAUTH_CLIENT_SECRET_ENVS` (comma-separated exact names), and
 * - never a name the service reads for itself (`isServiceEnvName`); the
 *   allowlist cannot override that.
 *
 * The one rule, used by the provider schema (create, PATCH, the whole-config
 * PATCH, boot) and again by the token exchange right before it reads the env.
 * `test/api/routes/oauth-provider-secret-env.test.ts` scans the env readers of
 * `src/`, `adapter/`, `cli/`, `docs/configuration.md` and `.env.example` and
 * fails when a name they read is not denied here.
 */
import { ENV_SEEDS } from './keys.js';

export const CLIENT_SECRET_ENV_PATTERN = /^[A-Z][A-Z0-9_]{0,120}_CLIENT_SECRET$/;
/** The shape of any env variable name the API accepts in config (`ISSUER`, `GITHUB_CLIENT_SECRET`). */
export const ENV_NAME_PATTERN = /^[A-Z][A-Z0-9_]*$/;
export const CLIENT_SECRET_ENVS_VAR = 'OAUTH_CLIENT_SECRET_ENVS';

/**
 * Every env variable the API, its runtime entries, the adapters, the demo and
 * the CLI read (contract §0.6, §1.1, §6.2 and docs/configuration.md). They may
 * share one process environment, so none of them is ever a provider's secret.
 */
const SERVICE_ENV_NAMES: ReadonlySet<string> = new Set([
  // §0.6 and the runtime entries
  'ISSUER',
  'NODE_ENV',
  'DATABASE_URL',
  'DATABASE_AUTH_TOKEN',
  'DATABASE_BINDING',
  'APP_ID',
  'APP_ORIGINS',
  'APP_ORIGIN',
  'TRUST_PROXY',
  'CLIENT_PLACE_HEADER',
  'LOGIN_RESPONSE_FLOOR_MS',
  'RATE_LIMIT_STORE',
  'RATE_LIMIT_IPV6_PREFIX',
  'GENERATE_DEV_SECRETS',
  'DISABLE_AUTH_RATE_LIMITS',
  'OWNER_EMAIL',
  'REFRESH_TOKEN_BCRYPT_COST',
  'REQUEST_DEADLINE_MS',
  'DB_TIMEOUT_MS',
  'OPENAPI_ENABLED',
  'DELIVERY_MODE',
  'DELIVERY_WEBHOOK_URL',
  'DELIVERY_WEBHOOK_SECRET',
  'PORT',
  'HOST',
  'DEMO_PORT',
  // the demo's second app (demo/relying-party.ts), a client of the provider: its own secret is never a provider's
  'RP_PORT',
  'RP_ORIGIN',
  'RP_ISSUER',
  'RP_CLIENT_ID',
  'RP_CLIENT_SECRET',
  // the MCP server example (examples/mcp-workers): the resource it serves and the scope it requires
  'RESOURCE',
  'SCOPE',
  'HTTP_REQUEST_TIMEOUT_MS',
  'WEBHOOK_TIMEOUT_MS',
  CLIENT_SECRET_ENVS_VAR,
  // §1.1 secrets and keys (SVC_* and *_PRIVATE are denied as families below)
  'API_SERVICE_TOKEN',
  'REFRESH_TOKEN_LOOKUP_SECRET',
  'TOTP_SECRET_ENCRYPTION_KEY',
  'OAUTH_STATE_SECRET',
  'DECOY_SUBJECT_SECRET',
  'COOKIE_SIGNING_KEY',
  // adapters, demo, examples and CLI
  'COOKIE_SECRET',
  'API_ISSUER',
  'AUTH',
  'NO_COLOR',
  'FORCE_COLOR',
  'TERM',
  // §6.2 config seeds
  ...Object.values(ENV_SEEDS).map(([name]) => name),
]);
const SERVICE_ENV_PREFIXES = ['DATABASE_', 'SVC_'];
const SERVICE_ENV_SUFFIXES = ['_PRIVATE', '_PRIVATE_KEY'];

/** True for a name the service reads for itself (never a provider's client secret). */
export function isServiceEnvName(name: string): boolean {
  return (
    SERVICE_ENV_NAMES.has(name) ||
    SERVICE_ENV_PREFIXES.some((p) => name.startsWith(p)) ||
    SERVICE_ENV_SUFFIXES.some((s) => name.endsWith(s))
  );
}

export const ENV_NAME_MESSAGE = `must match ^[A-Z][A-Z0-9_]*$ (the NAME of an env variable), ending in _CLIENT_SECRET (e.g. GITHUB_CLIENT_SECRET) or listed in ${CLIENT_SECRET_ENVS_VAR}`;
export const SERVICE_ENV_MESSAGE =
  'names an env variable the service reads for itself; use a variable of its own such as GITHUB_CLIENT_SECRET';
export const CLIENT_SECRET_ENV_MESSAGE = `must name an env variable ending in _CLIENT_SECRET (e.g. GITHUB_CLIENT_SECRET) or listed in ${CLIENT_SECRET_ENVS_VAR}`;

/** Null when a provider may read its client secret from `name`, else why not (never the variable's value). */
export function clientSecretEnvProblem(name: string, allowlist: readonly string[]): string | null {
  if (!ENV_NAME_PATTERN.test(name)) return ENV_NAME_MESSAGE;
  if (isServiceEnvName(name))
    return `${SERVICE_ENV_MESSAGE} (${CLIENT_SECRET_ENV_MESSAGE}, never one the service reads)`;
  if (CLIENT_SECRET_ENV_PATTERN.test(name) || allowlist.includes(name)) return null;
  return CLIENT_SECRET_ENV_MESSAGE;
}

/**
 * `OAUTH_CLIENT_SECRET_ENVS`: extra names providers may use. Throws a message
 * naming the offending entry when one is not an env name or is a service name.
 */
export function parseClientSecretEnvAllowlist(raw: string | undefined): string[] {
  const names = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!ENV_NAME_PATTERN.test(name))
      throw new TypeError(`${JSON.stringify(name.slice(0, 60))} is not an env variable name`);
    if (isServiceEnvName(name))
      throw new TypeError(
        `${name} is a variable the service reads for itself and can never hold a provider's client secret`,
      );
  }
  return names;
}
