/**
 * The API's secrets (contract §1.1): each at least 32 characters, and each
 * optional one falling back to the service token. `parseEnv` checks them with
 * every other variable; `secretsFor` assembles them once the service token is
 * known (from `API_SERVICE_TOKEN`, or the development token of `crypto/dev-secrets.ts`).
 */
import { ConfigError } from './config-error.js';
import type { EnvRecord } from './env.js';

export interface ApiSecrets {
  /**
   * HS256 key of service tokens, OTP hash key, fallback for the others (`API_SERVICE_TOKEN`, or the development token
   * generated for this database).
   */
  serviceToken: string;
  refreshLookup: string;
  totpEncryption: string;
  oauthState: string;
  decoySubject: string;
}

const MIN_SECRET_LENGTH = 32;

/** A secret variable: unset or empty is undefined; shorter than 32 characters fails naming it. */
export function secret(env: EnvRecord, name: string): string | undefined {
  const v = env[name];
  if (v === undefined || v === '') return undefined;
  if (v.length < MIN_SECRET_LENGTH) throw new ConfigError(name, `must be at least ${MIN_SECRET_LENGTH} characters`);
  return v;
}

/** The secrets that fall back to the service token when unset (contract §1.1). */
const FALLBACK_SECRETS = [
  'REFRESH_TOKEN_LOOKUP_SECRET',
  'TOTP_SECRET_ENCRYPTION_KEY',
  'OAUTH_STATE_SECRET',
  'DECOY_SUBJECT_SECRET',
] as const;

/**
 * Every secret of the API given its service token: each dedicated variable
 * when set, the service token otherwise (contract §1.1).
 *
 * @example
 * const env: ApiEnv = { ...parsed, secrets: parsed.secrets ?? secretsFor(parsed.raw, generatedToken) };
 */
export function secretsFor(env: EnvRecord, serviceToken: string): ApiSecrets {
  const own = (name: (typeof FALLBACK_SECRETS)[number]) => secret(env, name) ?? serviceToken;
  return {
    serviceToken,
    refreshLookup: own('REFRESH_TOKEN_LOOKUP_SECRET'),
    totpEncryption: own('TOTP_SECRET_ENCRYPTION_KEY'),
    oauthState: own('OAUTH_STATE_SECRET'),
    decoySubject: own('DECOY_SUBJECT_SECRET'),
  };
}
