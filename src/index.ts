/**
 * `svc-auth/api`: build the auth API from an environment record.
 *
 * @example
 * import { createAuthApi } from 'svc-auth/api';
 * const app = await createAuthApi({ env: process.env });
 * export default { fetch: app.fetch };
 */
import { createAuthApiWith, type AuthApi, type CreateAuthApiOptions } from './create-api.js';
import { openDatabase } from './db/open.js';

/**
 * Opens the database (`DATABASE_URL`: a libSQL file, sqld or Turso, unless
 * `options.client` is given), applies migrations, bootstraps system config,
 * loads or creates signing keys, and resolves to the Hono app. Bad
 * configuration rejects with a `ConfigError` whose message names the variable.
 */
export function createAuthApi(options: CreateAuthApiOptions): Promise<AuthApi> {
  return createAuthApiWith(options, (url, authToken, callTimeoutMs) => openDatabase(url, authToken, { callTimeoutMs }));
}

export type { AuthApi, CreateAuthApiOptions } from './create-api.js';
export { ConfigError, configErrorLines } from './config/config-error.js';
export { runMaintenance } from './services/maintenance.js';
export type { EnvRecord } from './config/env.js';
export type { Clock } from './clock.js';
export type { RefreshTokenHasher } from './crypto/refresh-token.js';
