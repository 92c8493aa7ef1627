/**
 * The service dependencies a command needs, built the way `createAuthApi`
 * builds them (same event log, same config service), minus HTTP and keys.
 */
import { systemClock, type Clock } from '../src/clock.js';
import { parseEnv, type ApiEnv, type ApiSecrets } from '../src/config/env.js';
import type { Database, Db } from '../src/db/client.js';
import { createLogger, type Logger } from '../src/log.js';
import { createAuthEvents, type AuthEvents } from '../src/services/events/auth-events.js';
import type { PatchActor } from '../src/services/config/patch.js';
import { createSystemConfigService, type SystemConfigService } from '../src/services/config/system-config.js';
import { API_VERSION } from '../src/version.js';
import type { Streams } from './output.js';

export interface CliDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  events: AuthEvents;
  config: SystemConfigService;
  /** Only `production` is read by the services the CLI calls (provider validation). */
  env: ApiEnv;
}

/** Events written by the command line: no user, no session, no IP; the user agent names the tool. */
export const CLI_ACTOR: PatchActor = {
  actorUserId: null,
  sessionId: null,
  ipAddress: null,
  userAgent: `svc-cli/${API_VERSION}`,
};

/** The commands run no flow that needs the API's secrets; reading one is a bug, not a silent empty key. */
const NO_SECRETS = new Proxy({} as ApiSecrets, {
  get(_target, name) {
    throw new Error(`svc CLI: the API secret ${String(name)} is not available to commands`);
  },
});

export function cliDeps(database: Database, env: Record<string, string | undefined>, streams: Streams): CliDeps {
  const clock = systemClock;
  // Service logs (a failed event write) go to stderr, one redacted line each.
  const log = createLogger((_level, line) => streams.stderr.write(`${line}\n`), 'warn');
  // ISSUER and the secrets do not matter to these services; NODE_ENV does (production provider rules), and so does
  // OAUTH_CLIENT_SECRET_ENVS (the extra secret names a provider may use).
  const apiEnv = {
    ...parseEnv({
      ISSUER: 'http://svc-cli.invalid',
      DATABASE_URL: env['DATABASE_URL'],
      OAUTH_CLIENT_SECRET_ENVS: env['OAUTH_CLIENT_SECRET_ENVS'],
    }),
    secrets: NO_SECRETS,
    production: env['NODE_ENV']?.trim() === 'production',
  };
  return {
    db: database.db,
    clock,
    log,
    events: createAuthEvents(database.db, clock, log),
    config: createSystemConfigService(database.db, clock),
    env: apiEnv,
  };
}
