/**
 * Adapter options (contract §5.1): typed once, validated and defaulted once at
 * construction. Misconfiguration throws synchronously with a message naming
 * the option; nothing here is re-checked per request.
 */
import { resolvePlaceHeaders } from './place.js';
import type { MessagingOptions } from '../../common/messaging.js';
import { defaultFetch } from './default-fetch.js';

export type SameSite = 'lax' | 'strict' | 'none';

/** A `fetch`-compatible function (tests, Workers service bindings). */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** Options of `svcAdapter`, `svcTotpBridge`, `getUser` (and the Express twin). */
export interface SvcAdapterOptions {
  /** Absolute http(s) URL of the auth API; the base of every upstream and JWKS call. */
  authServerUrl: string;
  /** ≥ 32 characters. HS256 key of every adapter cookie. */
  cookieSecret: string;
  /** ≥ 32 characters; equals the API's `API_SERVICE_TOKEN`. Signs service tokens, never sent. */
  serviceSecret: string;
  /** The app's public origin (absolute URL): `iss` of every adapter cookie; always allowed by the origin guard. */
  issuer: string;
  /** The API's ISSUER: expected `iss` and `aud` of upstream RS256 tokens. */
  audience: string;
  /** `kid` header of service tokens. Default `dev-main`. */
  jwksKid?: string;
  /** Domain attribute of every cookie. */
  cookieDomain?: string;
  /** Default `svc-access`. */
  accessCookieName?: string;
  /** Default `svc-refresh`. */
  refreshCookieName?: string;
  /** Default `svc-ephemeral`. */
  registrationCookieName?: string;
  /** Default `svc-ephemeral`. */
  preAuthCookieName?: string;
  /** The same_device magic-link binding. Default `svc-magic-link`. */
  magicLinkCookieName?: string;
  /** Default: `NODE_ENV === "production"` (read once, at construction). */
  cookieSecure?: boolean;
  /** Default: `"none"` in production, `"lax"` otherwise. `"none"` needs `cookieSecure`. */
  cookieSameSite?: SameSite;
  /** Extra origins the origin guard accepts (§5.11). */
  allowedOrigins?: string[];
  /** Local delivery of codes and links (§5.10). */
  messaging?: MessagingOptions;
  /**
   * Used for every upstream and JWKS call. Default: on Node, one process-wide
   * `nodeUpstreamFetch()` (`node:http` with a keep-alive agent); elsewhere
   * `globalThis.fetch` (adapter/core/default-fetch.ts).
   */
  fetch?: FetchLike;
  /**
   * The client IP sent to the API. Receives the framework's request context.
   * Default: `CF-Connecting-IP` on Workers, the socket address on Node; never `X-Forwarded-For`.
   */
  // biome-ignore lint/suspicious/noExplicitAny: a Hono Context or an Express Request; a narrower type would refuse one of them
  resolveClientIp?: (c: any) => string | undefined;
  /**
   * Request headers your edge sets to the client's coarse place, joined in this order and sent to the
   * API as `x-svc-client-geo` (sessions, magic-link emails): `['x-vercel-ip-city', 'x-vercel-ip-country']` on
   * Vercel, `'cf-ipcountry'` behind Cloudflare's proxy. Name only headers your edge overwrites on every
   * request: a client could otherwise claim any place. Default: none (the Hono adapter on Workers uses
   * `request.cf`). See docs/devices.md.
   */
  clientPlaceHeader?: string | string[];
  /** Time source in ms (tests). Default `Date.now`. */
  now?: () => number;
  /** Log sink (lines are already redacted). Default `console`. */
  log?: (level: 'info' | 'warn' | 'error', line: string) => void;
}

export interface CookieNames {
  access: string;
  refresh: string;
  registration: string;
  preAuth: string;
  /** The pending OAuth flow's binding (`svc-oauth-binding`; not configurable). */
  oauthBinding: string;
  /** The pending same_device magic link's binding (`svc-magic-link`, `magicLinkCookieName`). */
  magicLink: string;
}

export interface CookieAttributes {
  secure: boolean;
  sameSite: SameSite;
  domain: string | undefined;
}

/** The options after validation and defaults. */
export interface ResolvedOptions {
  authServerUrl: string;
  cookieSecret: string;
  serviceSecret: string;
  issuer: string;
  issuerOrigin: string;
  audience: string;
  jwksKid: string;
  names: CookieNames;
  cookie: CookieAttributes;
  allowedOrigins: Set<string>;
  messaging: MessagingOptions | undefined;
  fetch: FetchLike;
  // biome-ignore lint/suspicious/noExplicitAny: as `resolveClientIp` above
  resolveClientIp: ((c: any) => string | undefined) | undefined;
  /** `clientPlaceHeader`, lower-cased. */
  clientPlaceHeaders: string[];
  now: () => number;
  log: (level: 'info' | 'warn' | 'error', line: string) => void;
}

export const MIN_SECRET_LENGTH = 32;

/** Name of the OAuth flow-binding cookie. */
export const OAUTH_BINDING_COOKIE = 'svc-oauth-binding';

function absoluteUrl(value: unknown, name: string, label: string): URL {
  let url: URL | null = null;
  try {
    url = typeof value === 'string' && value ? new URL(value) : null;
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new Error(`${label}: ${name} must be an absolute http(s) URL`);
  return url;
}

/** Checks a secret option; the messages are the contract's (§5.1, §5.9). */
export function checkSecret(value: unknown, name: string, label: string): string {
  if (typeof value !== 'string' || value === '') throw new Error(`${label}: missing ${name}`);
  if (value.length < MIN_SECRET_LENGTH)
    throw new Error(`${label}: ${name} must be at least ${MIN_SECRET_LENGTH} characters`);
  return value;
}

export const stripTrailingSlash = (s: string): string => s.replace(/\/$/, '');

/** `NODE_ENV` without touching `process` on runtimes that lack it. */
export function readNodeEnv(): string | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return proc?.env?.['NODE_ENV'];
}

const defaultLog = (level: 'info' | 'warn' | 'error', line: string) => {
  (level === 'error' ? console.error : level === 'warn' ? console.warn : console.info)(line);
};

export function resolveOptions(opts: SvcAdapterOptions, label = 'svcAdapter'): ResolvedOptions {
  if (!opts || typeof opts !== 'object') throw new Error(`${label}: options are required`);
  const cookieSecret = checkSecret(opts.cookieSecret, 'cookieSecret', label);
  const serviceSecret = checkSecret(opts.serviceSecret, 'serviceSecret', label);
  if (cookieSecret === serviceSecret) throw new Error(`${label}: cookieSecret and serviceSecret must be different`);
  absoluteUrl(opts.authServerUrl, 'authServerUrl', label);
  const authServerUrl = stripTrailingSlash(opts.authServerUrl);
  const issuerUrl = absoluteUrl(opts.issuer, 'issuer', label);
  if (typeof opts.audience !== 'string' || opts.audience.trim() === '') throw new Error(`${label}: missing audience`);

  const production = readNodeEnv() === 'production';
  const secure = opts.cookieSecure ?? production;
  const sameSite = opts.cookieSameSite ?? (production ? 'none' : 'lax');
  if (!['lax', 'strict', 'none'].includes(sameSite))
    throw new Error(`${label}: cookieSameSite must be "lax", "strict" or "none"`);
  if (sameSite === 'none' && !secure)
    throw new Error(
      `${label}: cookieSameSite "none" requires cookieSecure (browsers drop SameSite=None cookies without Secure)`,
    );
  if (opts.messaging) checkMessaging(opts.messaging, label);
  const fetchFn = opts.fetch ?? defaultFetch;

  return {
    authServerUrl,
    cookieSecret,
    serviceSecret,
    issuer: opts.issuer,
    issuerOrigin: issuerUrl.origin.toLowerCase(),
    audience: stripTrailingSlash(opts.audience.trim()),
    jwksKid: opts.jwksKid ?? 'dev-main',
    names: {
      access: opts.accessCookieName ?? 'svc-access',
      refresh: opts.refreshCookieName ?? 'svc-refresh',
      registration: opts.registrationCookieName ?? 'svc-ephemeral',
      preAuth: opts.preAuthCookieName ?? 'svc-ephemeral',
      oauthBinding: OAUTH_BINDING_COOKIE,
      magicLink: opts.magicLinkCookieName ?? 'svc-magic-link',
    },
    cookie: { secure, sameSite, domain: opts.cookieDomain },
    allowedOrigins: new Set([
      issuerUrl.origin.toLowerCase(),
      ...(opts.allowedOrigins ?? []).map((o) => o.trim().toLowerCase()),
    ]),
    messaging: opts.messaging,
    fetch: fetchFn,
    resolveClientIp: opts.resolveClientIp,
    clientPlaceHeaders: resolvePlaceHeaders(opts.clientPlaceHeader),
    now: opts.now ?? Date.now,
    log: opts.log ?? defaultLog,
  };
}

function checkMessaging(m: MessagingOptions, label: string): void {
  const emailPath = typeof m.email?.send === 'function';
  if (!emailPath && typeof m.handlers?.otpEmail !== 'function')
    throw new Error(
      `${label}: messaging cannot deliver otp_email (give messaging.email or messaging.handlers.otpEmail)`,
    );
  if (!emailPath && typeof m.handlers?.magicLinkEmail !== 'function')
    throw new Error(
      `${label}: messaging cannot deliver magic_link_email (give messaging.email or messaging.handlers.magicLinkEmail)`,
    );
}
