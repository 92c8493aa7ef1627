/**
 * The provider's secrets (docs/oauth-provider.md): client ids and secrets,
 * authorization codes and refresh tokens. Each is 256 random bits (ids 128),
 * so a fast SHA-256 with a purpose label is enough at rest; a slow hash
 * would only defend low-entropy secrets, and these never are. Comparisons of
 * a presented secret against its stored hash are constant-time.
 */
import { timingSafeEqual } from '../../common/encoding.js';
import { sha256Hex } from './hash.js';
import { randomToken } from './random.js';

export type OAuthSecretPurpose = 'client-secret' | 'code' | 'refresh-token' | 'request';

/** Prefixes make a leaked value recognisable (secret scanners) and tell the kinds apart at a glance. */
const PREFIX: Record<OAuthSecretPurpose, string> = {
  'client-secret': 'svc_cs_',
  code: 'svc_ac_',
  'refresh-token': 'svc_rt_',
  request: 'svc_ar_',
};

/** A new public client id, e.g. `svc_ci_Hx3…` (128 random bits). */
export const newOAuthClientId = (): string => `svc_ci_${randomToken(16)}`;

/** A new secret value of the given purpose (256 random bits). */
export const newOAuthSecret = (purpose: OAuthSecretPurpose): string => `${PREFIX[purpose]}${randomToken(32)}`;

/** Hex SHA-256 of `svc/oauth-<purpose>:<value>`: what the database stores. */
export const hashOAuthSecret = (purpose: OAuthSecretPurpose, value: string): string =>
  sha256Hex(`svc/oauth-${purpose}:${value}`);

/** Constant-time check of a presented value against a stored hash. */
export const oauthSecretMatches = (purpose: OAuthSecretPurpose, storedHash: string, presented: string): boolean =>
  timingSafeEqual(storedHash, hashOAuthSecret(purpose, presented));
