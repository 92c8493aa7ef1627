/**
 * Self-service passkey management (contract §3.10): rename and delete, with
 * the last-credential rule — a deletion is refused when the user's
 * loginMethods computed without that passkey would be empty.
 */
import type { AccessAuth, Deps, RequestContext } from '../../deps.js';
import { fail } from '../../errors.js';
import { deleteUserCredential, findUserCredential, updateCredentialLabels } from '../../repositories/credentials.js';
import { clientFields } from '../events/auth-events.js';
import { computeLoginMethods } from '../sign-in/login-methods.js';

export async function renameCredential(
  deps: Pick<Deps, 'db' | 'clock' | 'events'>,
  input: {
    auth: AccessAuth;
    client: RequestContext;
    id: string;
    friendlyName?: string | null | undefined;
    deviceInfo?: string | undefined;
  },
) {
  const { user, session } = input.auth;
  const fields: { friendlyName?: string | null; deviceInfo?: string } = {};
  if (input.friendlyName !== undefined) fields.friendlyName = input.friendlyName;
  if (input.deviceInfo !== undefined) fields.deviceInfo = input.deviceInfo;
  const row = await updateCredentialLabels(deps.db, user.id, input.id, fields, new Date(deps.clock.now()));
  if (!row) throw fail('not_found', 'Credential not found');
  await deps.events.record({
    type: 'credential_updated',
    userId: user.id,
    sessionId: session.id,
    ...clientFields(input.client),
    metadata: { fields: Object.keys(fields) },
  });
  return row;
}

export async function deleteCredential(
  deps: Pick<Deps, 'db' | 'config' | 'events'>,
  input: { auth: AccessAuth; client: RequestContext; id: string },
) {
  const { user, session } = input.auth;
  if (!(await findUserCredential(deps.db, user.id, input.id))) throw fail('not_found', 'Credential not found');
  const cfg = await deps.config.get();
  const hasVerifiedPhone = user.phoneVerified && user.phone !== null;
  // Without any passkey, would the user still have a way in? If not, another passkey must remain.
  const withoutPasskeys = computeLoginMethods(cfg.login_methods, cfg.passkey_login_fallback_enabled, {
    hasPasskey: false,
    hasVerifiedPhone,
  });
  const keepOne = withoutPasskeys.length === 0;
  if (!(await deleteUserCredential(deps.db, user.id, input.id, keepOne))) {
    // Gone in the meantime, or it was the last passkey while the rule needs one.
    if (!keepOne || !(await findUserCredential(deps.db, user.id, input.id)))
      throw fail('not_found', 'Credential not found');
    throw fail('last_credential');
  }
  await deps.events.record({
    type: 'credential_deleted',
    userId: user.id,
    sessionId: session.id,
    ...clientFields(input.client),
    metadata: {},
  });
}
