/**
 * The end both OAuth sign-ins share (the redirect callback and the native ID
 * token, contract §3.13): the provider's profile → the linked account (the
 * account-linking table) → `oauth_login_success` → a session envelope or the
 * MFA step. Refusals go through the caller's `failed`, which records
 * `oauth_login_failed` with the flow's own metadata.
 */
import type { OAuthProviderConfig } from '../../config/oauth-provider.js';
import type { Deps, RequestContext } from '../../deps.js';
import { fail, type ApiError } from '../../errors.js';
import { LinkRefused, resolveOAuthUser } from './account-linking.js';
import { clientFields } from '../events/auth-events.js';
import { readProfile } from './profile.js';
import { issueSession } from '../session/issuance.js';

type SignInDeps = Pick<Deps, 'db' | 'keys' | 'clock' | 'config' | 'env' | 'events' | 'refreshTokenHasher'>;

export interface ProfileSignIn {
  /** The provider, with the JSON paths to read `source` by. */
  provider: OAuthProviderConfig;
  /** The userinfo answer or the verified ID-token claims. */
  source: Record<string, unknown>;
  client: RequestContext;
  failed: (reason: string, err: ApiError) => Promise<ApiError>;
  /** Extra metadata of the success event (e.g. `{ flow: 'id_token' }`). */
  metadata?: Record<string, unknown>;
  returnTo?: string;
}

export async function signInWithProfile(deps: SignInDeps, input: ProfileSignIn) {
  const { provider, client, failed } = input;
  const read = readProfile(provider, input.source);
  if (!read.ok) throw await failed(read.code.replace('oauth_', ''), fail(read.code, undefined, { code: read.code }));

  let linked;
  try {
    linked = await resolveOAuthUser(deps, { provider, profile: read.profile, client });
  } catch (err) {
    if (err instanceof LinkRefused) throw await failed(err.reason, err.apiError);
    throw err;
  }
  const { user } = linked;
  await deps.events.record({
    ...clientFields(client),
    type: 'oauth_login_success',
    userId: user.id,
    metadata: { providerId: provider.id, ...input.metadata, outcome: linked.outcome },
  });
  return issueSession(deps, { user, method: 'oauth', client, ...(input.returnTo ? { returnTo: input.returnTo } : {}) });
}
