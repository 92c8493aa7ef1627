/**
 * The auth API's assembly, given how to open a database from a URL. The
 * package entry (`index.ts`) passes libSQL's full opener; the Workers entries
 * pass their own client or opener, so a D1 worker carries no libSQL driver.
 */
import type { Client } from '@libsql/client';
import type { Hono } from 'hono';
import { createApp } from './app.js';
import { systemClock, type Clock } from './clock.js';
import { ConfigError } from './config/config-error.js';
import { parseEnv, secretsFor, type ApiEnv, type EnvRecord, type ParsedEnv } from './config/env.js';
import { loadDevelopmentServiceToken } from './crypto/dev-secrets.js';
import { loadDevKeys, loadProductionKeys } from './crypto/keys.js';
import { inlineRefreshTokenHasher, type RefreshTokenHasher } from './crypto/refresh-token.js';
import { createServiceTokenVerifier } from './crypto/service-token.js';
import { wrapClient, type Database } from './db/client.js';
import { applyMigrations } from './db/migrate.js';
import type { AppEnv, Deps } from './deps.js';
import { createLogger, type Logger } from './log.js';
import type { ConnectionIp } from './middleware/client-context.js';
import { createAuthEvents } from './services/events/auth-events.js';
import { createSenderFromEnv, type MessageSender } from './services/delivery/index.js';
import { createLockout } from './services/limits/lockout.js';
import { loadProviderEntries } from './services/oauth/providers.js';
import { createDatabaseStore, createMemoryStore, createRateLimiter } from './services/limits/rate-limiter.js';
import { bootstrapSystemConfig, createSystemConfigService, seedIssues } from './services/config/system-config.js';

export interface CreateAuthApiOptions {
  /** The same variables as the process environment (`process.env`, Workers bindings). */
  env: EnvRecord;
  /** Time source (tests inject a manual clock). */
  clock?: Clock;
  /** An already-open libSQL client; otherwise `DATABASE_URL` is opened. */
  client?: Client;
  /** Socket address lookup of the runtime (the entry files provide it). */
  connectionIp?: ConnectionIp;
  logger?: Logger;
  /** Replaces the sender chosen by `DELIVERY_MODE` (null: none). */
  sender?: MessageSender | null;
  /** Where refresh-token bcrypt runs; default inline. The Node and Bun entries pass a worker pool. */
  refreshTokenHasher?: RefreshTokenHasher;
  /**
   * The server listens on a loopback address only (the Node, Bun and Deno
   * entries say so from `HOST`). Outside production, such an API without
   * `API_SERVICE_TOKEN` generates its own random development token; anything
   * else (a Worker, an embedder) needs `GENERATE_DEV_SECRETS=true` for that.
   */
  loopbackOnly?: boolean;
}

export type AuthApi = Hono<AppEnv> & {
  /** The wired dependencies (tests and embedders reach the database through it). */
  deps: Deps;
  /** Closes the database client. */
  close(): Promise<void>;
};

/** Opens `DATABASE_URL` (with its auth token and the per-call timeout for remote databases). */
export type OpenDatabaseUrl = (url: string, authToken: string | undefined, callTimeoutMs: number) => Promise<Database>;

async function openFromEnv(
  open: OpenDatabaseUrl,
  url: string,
  authToken: string | undefined,
  callTimeoutMs: number,
): Promise<Database> {
  try {
    return await open(url, authToken, callTimeoutMs);
  } catch (err) {
    // createAuthApi has no file-system access (it runs on Workers); the Node,
    // Bun and Deno entries create the directory.
    const hint = url.startsWith('file:') ? '; its directory must exist' : '';
    throw new ConfigError('DATABASE_URL', `cannot open the database (${(err as Error).message.split('\n')[0]})${hint}`);
  }
}

/**
 * When the env itself is bad, the present config seeds are checked too, so one
 * start reports every bad variable (a seed is only consulted when its row is
 * missing, so this runs only on a start that fails anyway).
 */
function parseEnvReportingSeeds(raw: EnvRecord) {
  try {
    return parseEnv(raw);
  } catch (err) {
    if (err instanceof ConfigError) throw ConfigError.combine([err, ...seedIssues(raw)]);
    throw err;
  }
}

/**
 * A development API without `API_SERVICE_TOKEN` generates its own only where
 * nobody else can reach it, or when the operator says so: a Worker is public
 * the moment it runs.
 */
function refuseUngeneratedSecrets(parsed: ParsedEnv, loopbackOnly: boolean): void {
  if (parsed.secrets || loopbackOnly || parsed.generateDevSecrets) return;
  throw new ConfigError(
    'API_SERVICE_TOKEN',
    'is not set, and this API may be reachable from other machines: set it (at least 32 random characters; `wrangler secret put API_SERVICE_TOKEN` on Workers), or set GENERATE_DEV_SECRETS=true on a development instance to generate one',
  );
}

/** The parsed env with its secrets: the configured ones, or this database's development token. */
async function resolveSecrets(parsed: ParsedEnv, db: Database['db'], clock: Clock, log: Logger): Promise<ApiEnv> {
  if (parsed.secrets) return { ...parsed, secrets: parsed.secrets };
  const { token, created } = await loadDevelopmentServiceToken(db, clock.now());
  // Printed once, by the process that generated it: a separate adapter needs it as its service secret.
  if (created)
    log.log(
      'warn',
      `generated a development API_SERVICE_TOKEN for this database (stored in its development_secrets table; give it to your adapter as serviceSecret, or set API_SERVICE_TOKEN): ${token}`,
    );
  // The generation line already says it; the generic warning is for the later starts.
  const warnings = created
    ? parsed.warnings.filter((w) => !w.startsWith('API_SERVICE_TOKEN is unset'))
    : parsed.warnings;
  return { ...parsed, warnings, secrets: secretsFor(parsed.raw, token) };
}

/** `createAuthApi` with the database opener given (see `index.ts`). */
export async function createAuthApiWith(options: CreateAuthApiOptions, open: OpenDatabaseUrl): Promise<AuthApi> {
  const clock = options.clock ?? systemClock;
  const log = options.logger ?? createLogger();
  const parsed = parseEnvReportingSeeds(options.env);
  refuseUngeneratedSecrets(parsed, options.loopbackOnly === true);
  const database = options.client
    ? wrapClient(
        options.client,
        parsed.databaseUrl.startsWith('file:') || parsed.databaseUrl === ':memory:' ? 'file' : 'remote',
      )
    : await openFromEnv(open, parsed.databaseUrl, parsed.databaseAuthToken, parsed.dbTimeoutMs);
  const { db } = database;
  await applyMigrations(database.client);
  const events = createAuthEvents(db, clock, log);
  try {
    await bootstrapSystemConfig(db, options.env, clock);
  } catch (err) {
    if (err instanceof ConfigError)
      await events.record({ type: 'system_config_error', metadata: { key: err.key, phase: 'boot' } });
    throw err;
  }
  const keys = parsed.productionKeys
    ? await loadProductionKeys(parsed.productionKeys)
    : await loadDevKeys(db, clock.now());
  const env = await resolveSecrets(parsed, db, clock, log);
  for (const w of env.warnings) log.log('warn', w);

  const deps: Deps = {
    env,
    database,
    db,
    clock,
    config: createSystemConfigService(db, clock),
    keys,
    events,
    lockout: createLockout(db, clock, events),
    limiter: createRateLimiter(
      env.rateLimitStore === 'memory' ? createMemoryStore() : createDatabaseStore(db),
      env.disableRateLimits,
    ),
    log,
    refreshTokenHasher: options.refreshTokenHasher ?? inlineRefreshTokenHasher,
    verifyServiceToken: createServiceTokenVerifier(env.secrets.serviceToken),
    extensions: { sender: options.sender !== undefined ? options.sender : createSenderFromEnv(env.delivery) },
  };
  // Invalid OAuth providers are hidden, not fatal; report them at boot (contract §6.1).
  await loadProviderEntries(deps);
  const app = createApp(deps, { connectionIp: options.connectionIp });
  return Object.assign(app, {
    deps,
    close: async () => {
      database.client.close();
    },
  });
}
