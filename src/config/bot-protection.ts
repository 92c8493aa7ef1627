/**
 * The `bot_protection` system-config key: an optional challenge (Cloudflare
 * Turnstile, hCaptcha or reCAPTCHA) on the routes that send or create.
 * The secret is never in config: `secretEnv` names the env variable that
 * holds it, with the same "a name of its own, never a service variable" rule
 * as an OAuth provider's `clientSecretEnv` (oauth-secret-env.ts): the shape here, the
 * service-name denial on PATCH and before each call (bot-protection-secret.ts).
 *
 * `siteverifyUrl` replaces the provider's verification endpoint (a local
 * stand-in in tests, a self-hosted mirror). The secret is posted there, so in
 * production only the provider's own hosts are accepted: on PATCH
 * (`siteverifyUrlProblem`) and again right before each call, because an env
 * seed or an older row bypasses the PATCH check.
 */
import * as z from 'zod/mini';

export const BOT_PROTECTION_PROVIDERS = ['turnstile', 'hcaptcha', 'recaptcha'] as const;
export type BotProtectionProvider = (typeof BOT_PROTECTION_PROVIDERS)[number];

/** The routes a challenge can guard (the ones that send a message or create something). */
export const CHALLENGE_ROUTES = ['login', 'register', 'email_otp', 'phone_otp', 'magic_link'] as const;
export type ChallengeRoute = (typeof CHALLENGE_ROUTES)[number];

export const DEFAULT_CHALLENGE_TIMEOUT_MS = 3000;

/** Each provider's documented siteverify endpoint, and the hosts production may override it with. */
export const PROVIDER_ENDPOINTS: Record<BotProtectionProvider, { url: string; hosts: readonly string[] }> = {
  turnstile: {
    url: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
    hosts: ['challenges.cloudflare.com'],
  },
  hcaptcha: { url: 'https://api.hcaptcha.com/siteverify', hosts: ['api.hcaptcha.com', 'hcaptcha.com'] },
  recaptcha: {
    url: 'https://www.google.com/recaptcha/api/siteverify',
    hosts: ['www.google.com', 'www.recaptcha.net'],
  },
};

/** `TURNSTILE_SECRET`, `HCAPTCHA_SECRET`, `RECAPTCHA_SECRET_KEY`: a variable meant for the challenge secret. */
export const CHALLENGE_SECRET_ENV_PATTERN = /^[A-Z][A-Z0-9_]{0,120}_SECRET(_KEY)?$/;
export const SECRET_ENV_MESSAGE =
  'must name an env variable of its own ending in _SECRET or _SECRET_KEY (e.g. TURNSTILE_SECRET), never one the service reads or an OAuth client secret';

/**
 * The shape half of the rule; `challengeSecretEnvAllowed` (bot-protection-secret.ts)
 * adds "never a service variable". Split because oauth-secret-env.ts reads
 * keys.ts, which imports this schema.
 */
export const challengeSecretEnvShape = (name: string): boolean =>
  CHALLENGE_SECRET_ENV_PATTERN.test(name) && !name.endsWith('_CLIENT_SECRET');

/** Null when the secret may be posted to `url` for this provider, else why not (no value echoed). */
export function siteverifyUrlProblem(provider: BotProtectionProvider, url: string, production: boolean): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (u.username || u.password) return 'must not carry credentials';
  if (!production) return u.protocol === 'http:' || u.protocol === 'https:' ? null : 'must be an http(s) URL';
  if (u.protocol !== 'https:' || !PROVIDER_ENDPOINTS[provider].hosts.includes(u.hostname) || u.port !== '')
    return `in production must be an https URL on ${PROVIDER_ENDPOINTS[provider].hosts.join(' or ')}`;
  return null;
}

const siteKey = z
  .string()
  .check(z.minLength(1), z.maxLength(200), z.regex(/^[A-Za-z0-9_.-]+$/, 'must be the public site key'));

export const botProtectionOnSchema = z.strictObject({
  provider: z.enum(BOT_PROTECTION_PROVIDERS),
  siteKey,
  secretEnv: z.string().check(z.maxLength(130), z.refine(challengeSecretEnvShape, SECRET_ENV_MESSAGE)),
  /** Omitted: every route of CHALLENGE_ROUTES. */
  routes: z.optional(
    z.array(z.enum(CHALLENGE_ROUTES)).check(
      z.minLength(1),
      z.refine((a) => new Set(a).size === a.length, 'routes must be unique'),
    ),
  ),
  /** What a provider outage does: `closed` (503, the default) or `open` (pass, with an event). */
  failMode: z.optional(z.enum(['closed', 'open'])),
  timeoutMs: z.optional(z.number().check(z.int(), z.gte(100), z.lte(10_000))),
  /** reCAPTCHA v3: the lowest score that passes (answers without a score are v2 and pass on `success`). */
  minScore: z.optional(z.number().check(z.gte(0), z.lte(1))),
  siteverifyUrl: z.optional(
    z.string().check(
      z.maxLength(2048),
      z.refine((v) => siteverifyUrlProblem('turnstile', v, false) === null, 'must be an absolute http(s) URL'),
    ),
  ),
});
export type BotProtectionOn = z.infer<typeof botProtectionOnSchema>;

export const botProtectionSchema = z.union([z.strictObject({ provider: z.literal('none') }), botProtectionOnSchema]);
export type BotProtectionConfig = z.infer<typeof botProtectionSchema>;

/** Off by default. */
export const BOT_PROTECTION_OFF: BotProtectionConfig = { provider: 'none' };

/** The routes a configured challenge guards. */
export const guardedRoutes = (cfg: BotProtectionOn): readonly ChallengeRoute[] => cfg.routes ?? CHALLENGE_ROUTES;

/** What a client may read (`GET /system-config/public`): never the secret's name or the endpoint. */
export function publicBotProtection(
  cfg: BotProtectionConfig,
): { provider: BotProtectionProvider; siteKey: string; routes: ChallengeRoute[] } | null {
  if (cfg.provider === 'none') return null;
  return { provider: cfg.provider, siteKey: cfg.siteKey, routes: [...guardedRoutes(cfg)] };
}
