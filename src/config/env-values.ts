/**
 * The value parsers of `parseEnv` (config/env.ts, the only place that names
 * environment variables), and `EnvChecks`, which collects every problem of
 * one parse so they are reported together.
 */
import { ConfigError } from './config-error.js';
import type { DeliveryEnv, EnvRecord, TrustProxy } from './env.js';
import { secret } from './secrets.js';

/** One parse's problems; a failed check's `fallback` stands in so the other checks still run. */
export class EnvChecks {
  readonly issues: ConfigError[] = [];
  readonly production: boolean;

  constructor(readonly env: EnvRecord) {
    this.production = this.str('NODE_ENV') === 'production';
  }

  /** The trimmed value; unset or blank is undefined. */
  str(name: string): string | undefined {
    return str(this.env, name);
  }

  /** A comma-separated list, trimmed, without empty items. */
  list(name: string): string[] {
    return (this.str(name) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }

  /** Runs one check; a ConfigError is recorded and `fallback` stands in. */
  check<T>(fn: () => T, fallback: T): T {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      this.issues.push(err);
      return fallback;
    }
  }

  fail(key: string, problem: string): void {
    this.issues.push(new ConfigError(key, problem));
  }

  /** Whether a problem was already recorded for `key` (so a second one does not repeat it). */
  failed(key: string): boolean {
    return this.issues.some((i) => i.key === key);
  }
}

export const str = (env: EnvRecord, name: string): string | undefined => {
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
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError('ISSUER', 'must be an absolute http(s) URL');
  if (trimmed.endsWith('/')) throw new ConfigError('ISSUER', 'must not end with a slash');
  return trimmed;
}

export function parseTrustProxy(value: string | undefined): TrustProxy {
  if (!value) return { mode: 'connection' };
  const m = /^xff:(\d{1,2})$/.exec(value);
  if (!m || Number(m[1]) < 1) throw new ConfigError('TRUST_PROXY', 'must be unset or xff:<n> with n ≥ 1');
  return { mode: 'xff', hops: Number(m[1]) };
}

/**
 * `CLIENT_PLACE_HEADER`: header names only (lower-cased), at most 3. The adapter's own `x-svc-*` headers
 * are refused: they are honoured only with a service token, and naming one here would let any caller set it.
 * Credential headers are refused too: a place is stored and shown, a credential must never be.
 */
const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie']);

export function parseClientPlaceHeaders(names: string[]): string[] {
  const headers = names.map((n) => n.toLowerCase());
  if (
    headers.length > 3 ||
    headers.some((h) => !/^[a-z0-9-]{1,64}$/.test(h) || h.startsWith('x-svc-') || CREDENTIAL_HEADERS.has(h))
  )
    throw new ConfigError(
      'CLIENT_PLACE_HEADER',
      'must be up to 3 comma-separated header names (letters, digits, dashes), not an x-svc-* or credential header',
    );
  return headers;
}

export function parseFloorMs(value: string | undefined): number {
  if (value === undefined) return 250;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 && value.trim() !== '' ? Math.floor(n) : 250;
}

/**
 * `DELIVERY_MODE` = console (default outside production; refused in production),
 * webhook (needs `DELIVERY_WEBHOOK_URL` and `DELIVERY_WEBHOOK_SECRET`) or none
 * (default in production: only external delivery through the adapter).
 */
export function parseDelivery(env: EnvRecord, production: boolean): DeliveryEnv {
  const mode = str(env, 'DELIVERY_MODE') ?? (production ? 'none' : 'console');
  if (mode !== 'console' && mode !== 'webhook' && mode !== 'none')
    throw new ConfigError('DELIVERY_MODE', 'must be console, webhook or none');
  if (mode === 'console' && production)
    throw new ConfigError('DELIVERY_MODE', 'console prints codes and links and is refused in production');
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
    throw new ConfigError(
      'DELIVERY_WEBHOOK_URL',
      production ? 'must use https in production' : 'must be an absolute http(s) URL',
    );
  }
  const webhookSecret = secret(env, 'DELIVERY_WEBHOOK_SECRET');
  if (!webhookSecret) throw new ConfigError('DELIVERY_WEBHOOK_SECRET', 'is required when DELIVERY_MODE=webhook');
  return { mode, webhookUrl: parsed.toString(), webhookSecret };
}

export function parseOrigins(values: string[]): string[] {
  return values.map((o) => {
    try {
      return new URL(o).origin;
    } catch {
      throw new ConfigError('APP_ORIGINS', 'must be a comma-separated list of origins');
    }
  });
}
