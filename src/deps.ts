/**
 * The dependencies every service receives, and the Hono context variables.
 * Services take `Deps` (or a subset) plus plain inputs; they never see `Context`.
 */
import type { Clock } from './clock.js';
import type { ApiEnv } from './config/env.js';
import type { AccessClaims, EphemeralClaims, EphemeralContext } from './crypto/jwt.js';
import type { KeyStore } from './crypto/keys.js';
import type { RefreshTokenHasher } from './crypto/refresh-token.js';
import type { Database, Db } from './db/client.js';
import type { SessionRow, UserRow } from './db/schema.js';
import type { Logger } from './log.js';
import type { AuthEvents } from './services/events/auth-events.js';
import type { Lockout } from './services/limits/lockout.js';
import type { RateLimiter } from './services/limits/rate-limiter.js';
import type { SystemConfigService } from './services/config/system-config.js';

/** Runs work after the response (Workers `waitUntil`); defaults to fire-and-forget. */
export type Background = (work: Promise<unknown>) => void;

export interface Deps {
  env: ApiEnv;
  database: Database;
  db: Db;
  clock: Clock;
  config: SystemConfigService;
  keys: KeyStore;
  events: AuthEvents;
  lockout: Lockout;
  limiter: RateLimiter;
  log: Logger;
  /** bcrypt of refresh tokens: inline, or a worker pool on Node and Bun. */
  refreshTokenHasher: RefreshTokenHasher;
  verifyServiceToken: (
    header: string,
    nowMs: number,
  ) => Promise<{ ok: true; sub: string } | { ok: false; reason: string }>;
  /** Extension point filled by later features (message sender, …). */
  extensions: Record<string, unknown>;
}

/** The trusted client context of one request (contract §3.0 step 2). */
export interface RequestContext {
  /** The client address, canonical (events, sessions, the magic link's device binding). */
  ip: string | null;
  /**
   * What per-IP limiters count: the IPv4 address, or the IPv6 address masked to
   * `RATE_LIMIT_IPV6_PREFIX` bits (`2001:db8:1:2::/64`). Null when the address is unknown.
   */
  ipKey: string | null;
  userAgent: string | null;
  /** A valid service token was presented. */
  trusted: boolean;
  /** Trusted and `x-svc-auth-delivery-mode: external`: the response carries `delivery`. */
  externalDelivery: boolean;
  /** Request start, for response-time floors. */
  startedAtMs: number;
  /**
   * A coarse place (`Lyon, FR`) when the deployment knows it: the trusted
   * `x-svc-client-geo` header, or Cloudflare's `request.cf` on a direct call.
   */
  place?: string | null;
}

export interface AccessAuth {
  kind: 'access';
  token: string;
  claims: AccessClaims;
  user: UserRow;
  session: SessionRow;
}

export interface EphemeralAuth {
  kind: 'ephemeral';
  token: string;
  claims: EphemeralClaims;
  ctx: EphemeralContext;
  /** User id or decoy subject. */
  subject: string;
  /** The real principal, or null for a decoy (contract §1.10). */
  user: UserRow | null;
}

export type AppEnv = {
  Bindings: Record<string, unknown>;
  Variables: {
    deps: Deps;
    client: RequestContext;
    /** Parsed JSON body (undefined when the request had none). */
    body: unknown;
    access: AccessAuth;
    ephemeral: EphemeralAuth;
  };
};
