/**
 * The system-config keys of contract §6.1: their env seed, zod schema,
 * env parsing rule and built-in default.
 */
import * as z from 'zod/mini';
import { ROLE_NAME_MAX_LENGTH, ROLE_NAME_PATTERN } from '../../common/roles.js';
import { BOT_PROTECTION_OFF, botProtectionSchema } from './bot-protection.js';
import { DURATION_PATTERN, durationToSeconds } from './duration.js';
import { NO_NATIVE_APPS, nativeAppsSchema } from './native-apps.js';
import { OAUTH_SERVER_OFF, oauthServerSchema } from './oauth-server.js';

export const LOGIN_METHODS = ['passkey', 'magic_link', 'email_otp', 'phone_otp', 'oauth'] as const;
export type LoginMethod = (typeof LOGIN_METHODS)[number];

/**
 * Who may complete a magic-link sign-in: `number_match` (the link's
 * page picks the number the asking tab shows), `same_device` (only the asking
 * browser or app, by its binding), `none` (the original flow: any click).
 */
export const MAGIC_LINK_CONFIRMATIONS = ['number_match', 'same_device', 'none'] as const;
export type MagicLinkConfirmation = (typeof MAGIC_LINK_CONFIRMATIONS)[number];

const roleName = z.string().check(z.maxLength(ROLE_NAME_MAX_LENGTH), z.regex(ROLE_NAME_PATTERN));
const roleList = z.array(roleName).check(
  z.minLength(1),
  z.refine((a) => new Set(a).size === a.length, 'roles must be unique'),
);

const duration = (minSeconds: number, maxSeconds: number) =>
  z.string().check(
    z.regex(DURATION_PATTERN, 'must match <n>s|m|h|d'),
    z.refine((v) => {
      // zod 4 runs refinements after a failed regex too: leave that value to the regex issue.
      if (!DURATION_PATTERN.test(v)) return true;
      const s = durationToSeconds(v);
      return s >= minSeconds && s <= maxSeconds;
    }, `must be between ${minSeconds}s and ${maxSeconds}s`),
  );

const httpOrigin = z.string().check(
  z.refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === v.replace(/\/$/, '');
    } catch {
      return false;
    }
  }, 'must be an http(s) origin without a path'),
);

const originEntry = z.union([httpOrigin, z.string().check(z.regex(/^android:apk-key-hash:[A-Za-z0-9_-]+$/))]);

export const lockoutPolicySchema = z.object({
  enabled: z.boolean(),
  maxFailures: z.number().check(z.int(), z.gte(1), z.lte(1000)),
  windowSeconds: z.number().check(z.int(), z.gte(1), z.lte(86400)),
  lockoutSeconds: z.number().check(z.int(), z.gte(1), z.lte(86400)),
});
export type LockoutPolicy = z.infer<typeof lockoutPolicySchema>;

/**
 * Boot-level shape of a provider entry: an object with an id. Full validation
 * of each provider happens where providers are used, because a provider that
 * fails validation is hidden, not fatal (contract §6.1).
 */
const providerEntry = z.looseObject({ id: z.string() });

/** An ITU-T E.164 country calling code (`1`, `44`, `1684` is not one: at most three digits). */
const callingCode = z.string().check(z.regex(/^[1-9]\d{0,2}$/, 'must be a country calling code (1–3 digits, no +)'));

/**
 * Countries SMS codes may go to (SMS-pumping guard): `["*"]` allows every
 * calling code, `[]` sends no SMS at all, otherwise the listed codes only.
 */
export const smsCallingCodesSchema = z.array(z.union([z.literal('*'), callingCode])).check(
  z.maxLength(300),
  z.refine((a) => new Set(a).size === a.length, 'calling codes must be unique'),
  z.refine((a) => !a.includes('*') || a.length === 1, '"*" must be the only entry'),
);

export const smsHourlyBudgetSchema = z.strictObject({
  perCallingCode: z.number().check(z.int(), z.gte(1), z.lte(1_000_000)),
  global: z.number().check(z.int(), z.gte(1), z.lte(1_000_000)),
});
export type SmsHourlyBudget = z.infer<typeof smsHourlyBudgetSchema>;

export const configSchemas = {
  app_name: z.string().check(z.trim(), z.minLength(1), z.maxLength(80)),
  default_roles: roleList,
  available_roles: roleList,
  login_methods: z.array(z.enum(LOGIN_METHODS)).check(
    z.minLength(1),
    z.refine((a) => new Set(a).size === a.length, 'login methods must be unique'),
  ),
  passkey_login_fallback_enabled: z.boolean(),
  oauth_providers: z
    .array(providerEntry)
    .check(z.refine((a) => new Set(a.map((p) => p.id)).size === a.length, 'provider ids must be unique')),
  lockout_policy: lockoutPolicySchema,
  access_token_ttl: duration(60, 86400),
  refresh_token_ttl: duration(60, 365 * 86400),
  session_absolute_ttl: duration(300, 365 * 86400),
  session_idle_ttl: duration(300, 365 * 86400),
  refresh_reuse_grace_seconds: z.number().check(z.int(), z.gte(0), z.lte(300)),
  rate_limit: z.number().check(z.int(), z.gte(1), z.lte(1_000_000)),
  delay_after: z.number().check(z.int(), z.gte(0), z.lte(1_000_000)),
  rpid: z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(253),
      z.regex(/^[a-z0-9.-]+$/i, 'must be a hostname without scheme, port or path'),
    ),
  origins: z.array(originEntry).check(
    z.minLength(1),
    z.refine((a) => /^https?:/.test(a[0] ?? ''), 'origins[0] must be an http(s) origin'),
  ),
  native_apps: nativeAppsSchema,
  sms_allowed_calling_codes: smsCallingCodesSchema,
  sms_hourly_budget: smsHourlyBudgetSchema,
  magic_link_confirmation: z.enum(MAGIC_LINK_CONFIRMATIONS),
  revoke_sessions_on_contact_change: z.boolean(),
  bot_protection: botProtectionSchema,
  oauth_server: oauthServerSchema,
} as const;

export type ConfigKey = keyof typeof configSchemas;
export type SystemConfigValues = { [K in ConfigKey]: z.infer<(typeof configSchemas)[K]> };
export const CONFIG_KEYS = Object.keys(configSchemas) as ConfigKey[];

export const DEFAULT_LOCKOUT_POLICY: LockoutPolicy = {
  enabled: true,
  maxFailures: 10,
  windowSeconds: 900,
  lockoutSeconds: 900,
};

/**
 * Built-in defaults (contract §6.1, amended: the contract's recommended
 * `.env.example` values are defaults too, so `npm run api` starts with only
 * ISSUER set). None of them weakens a defence: they are display names, role
 * lists that grant nothing beyond `user` by default, the contract's own TTLs
 * and limits. `rpid` and `origins` have a development-only default derived
 * from ISSUER (`developmentDefault` in services/config/system-config.ts).
 */
export const DEFAULT_SMS_HOURLY_BUDGET: SmsHourlyBudget = { perCallingCode: 100, global: 1000 };

export const BUILT_IN_DEFAULTS: Partial<SystemConfigValues> = {
  app_name: 'svc',
  default_roles: ['user'],
  available_roles: ['user', 'admin', 'admin:read', 'admin:write'],
  login_methods: ['passkey', 'magic_link'],
  passkey_login_fallback_enabled: true,
  oauth_providers: [],
  lockout_policy: DEFAULT_LOCKOUT_POLICY,
  access_token_ttl: '15m',
  refresh_token_ttl: '1d',
  session_absolute_ttl: '1d',
  session_idle_ttl: '1d',
  // How long a keyed retry of a lost refresh answer is honoured (only a replay carrying the rotation's own
  // Idempotency-Key; any other replay is reuse). 30 s, like Okta's rotation grace period, covers a client's retries.
  refresh_reuse_grace_seconds: 30,
  rate_limit: 100,
  delay_after: 50,
  native_apps: NO_NATIVE_APPS,
  // Every country by default, so existing deployments keep sending; the budgets still cap a pumping run.
  sms_allowed_calling_codes: ['*'],
  sms_hourly_budget: DEFAULT_SMS_HOURLY_BUDGET,
  // Safe by default: a link someone else asked for cannot hand them the session on a bare click.
  magic_link_confirmation: 'number_match',
  // A changed email or phone ends the account's other sessions (docs/contact-change.md).
  revoke_sessions_on_contact_change: true,
  // Off until an operator picks a provider: a challenge needs a widget on the client.
  bot_protection: BOT_PROTECTION_OFF,
  // Off until an operator names the public issuer URL (docs/oauth-provider.md).
  oauth_server: OAUTH_SERVER_OFF,
};

const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const integer = (v: string): number => {
  if (!/^-?\d+$/.test(v.trim())) throw new TypeError('must be a base-10 integer');
  return Number(v.trim());
};

const json = (v: string): unknown => {
  try {
    return JSON.parse(v);
  } catch {
    throw new TypeError('must be valid JSON');
  }
};

const jsonObjectOver =
  <T extends object>(defaults: T) =>
  (v: string) => {
    const parsed = json(v);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new TypeError('must be a JSON object');
    return { ...defaults, ...parsed };
  };

/** Env seed name and parser per key (contract §6.2). */
export const ENV_SEEDS: { [K in ConfigKey]: [envName: string, parse: (raw: string) => unknown] } = {
  app_name: ['APP_NAME', (v) => v.trim()],
  default_roles: ['DEFAULT_ROLES', list],
  available_roles: ['AVAILABLE_ROLES', list],
  login_methods: ['LOGIN_METHODS', list],
  passkey_login_fallback_enabled: ['PASSKEY_LOGIN_FALLBACK_ENABLED', (v) => v.trim() === 'true'],
  oauth_providers: ['OAUTH_PROVIDERS', json],
  lockout_policy: [
    'LOCKOUT_POLICY',
    (v) => {
      const parsed = json(v);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new TypeError('must be a JSON object');
      return { ...DEFAULT_LOCKOUT_POLICY, ...parsed };
    },
  ],
  access_token_ttl: ['ACCESS_TOKEN_TTL', (v) => v.trim()],
  refresh_token_ttl: ['REFRESH_TOKEN_TTL', (v) => v.trim()],
  session_absolute_ttl: ['SESSION_ABSOLUTE_TTL', (v) => v.trim()],
  session_idle_ttl: ['SESSION_IDLE_TTL', (v) => v.trim()],
  refresh_reuse_grace_seconds: ['REFRESH_REUSE_GRACE_SECONDS', integer],
  rate_limit: ['RATE_LIMIT', integer],
  delay_after: ['DELAY_AFTER', integer],
  rpid: ['RPID', (v) => v.trim()],
  origins: ['ORIGINS', (v) => list(v).map((o) => (/^https?:/.test(o) ? o.replace(/\/$/, '') : o))],
  native_apps: ['NATIVE_APPS', json],
  // `+44` and `44` both name the United Kingdom's code.
  sms_allowed_calling_codes: ['SMS_ALLOWED_CALLING_CODES', (v) => list(v).map((c) => c.replace(/^\+/, ''))],
  sms_hourly_budget: ['SMS_HOURLY_BUDGET', jsonObjectOver(DEFAULT_SMS_HOURLY_BUDGET)],
  magic_link_confirmation: ['MAGIC_LINK_CONFIRMATION', (v) => v.trim()],
  revoke_sessions_on_contact_change: ['REVOKE_SESSIONS_ON_CONTACT_CHANGE', (v) => v.trim() === 'true'],
  bot_protection: ['BOT_PROTECTION', json],
  oauth_server: ['OAUTH_SERVER', jsonObjectOver(OAUTH_SERVER_OFF)],
};

/** Cross-key rules checked at boot and on PATCH (contract §6.4). */
export function crossKeyIssues(
  cfg: SystemConfigValues,
): { key: ConfigKey; code: 'role_not_available'; message: string }[] {
  const missing = cfg.default_roles.filter((r) => !cfg.available_roles.includes(r));
  return missing.length
    ? [
        {
          key: 'default_roles',
          code: 'role_not_available',
          message: `default role(s) not in available_roles: ${missing.join(', ')}`,
        },
      ]
    : [];
}
