/** The provider's switch: every `/oauth2/*` route answers 404 `oauth_server_disabled` while it is off. */
import type { OAuthServerConfig } from '../../config/oauth-server.js';
import type { Deps } from '../../deps.js';
import { fail } from '../../errors.js';

export type EnabledOAuthServer = OAuthServerConfig & { issuer: string };

/** The `oauth_server` config when enabled with an issuer; otherwise 404 `oauth_server_disabled`. */
export async function enabledProvider(deps: Pick<Deps, 'config'>): Promise<EnabledOAuthServer> {
  const cfg = (await deps.config.get()).oauth_server;
  if (!cfg.enabled || !cfg.issuer) throw fail('oauth_server_disabled');
  // One spelling of the issuer everywhere (tokens, metadata, `iss` on redirects): no trailing slash.
  return { ...cfg, issuer: cfg.issuer.replace(/\/+$/, '') };
}

/** Authorization codes live 60 s (OAuth 2.1 asks for short-lived codes). */
export const CODE_TTL_SECONDS = 60;
/** An authorization request waits 10 minutes for the consent answer. */
export const REQUEST_TTL_SECONDS = 600;
/** ID tokens are proof of one sign-in for the client, not a credential: 5 minutes. */
export const ID_TOKEN_TTL_SECONDS = 300;
