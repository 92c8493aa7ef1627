/** Turns the OAuth provider on (or changes its config) for a test API, bypassing the admin PATCH route. */
import { OAUTH_SERVER_OFF, type OAuthServerConfig } from '../../src/config/oauth-server.js';
import { writeConfigKeys } from '../../src/services/config/system-config.js';
import type { TestApi } from './make-app.js';

export async function setOAuthServer(t: TestApi, patch: Partial<OAuthServerConfig>): Promise<OAuthServerConfig> {
  const value: OAuthServerConfig = {
    ...OAUTH_SERVER_OFF,
    enabled: true,
    issuer: 'http://auth.test/auth',
    ...patch,
  };
  await writeConfigKeys(t.api.deps.db, { oauth_server: value }, null, t.clock);
  t.api.deps.config.invalidate();
  return value;
}
