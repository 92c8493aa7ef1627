/**
 * The framework-free halves of `requireRole` and `getUser` (contract §5.9),
 * so every adapter answers with the same statuses and bodies.
 */
import type { Me } from '../../common/contract.js';
import type { AdapterCore } from './core.js';
import { satisfiesAny } from '../../common/roles.js';
import type { ClientInfo } from './upstream.js';
import { accessTokenFor, loadUser, type AuthUser } from './user.js';

export type RoleFailure =
  | { status: 401; body: { error: 'unauthorized'; message: string } }
  | { status: 403; body: { error: 'forbidden'; message: string; required: string[] } };

/** `requireRole`'s argument as a list (copied, so later mutation of the caller's array changes nothing). */
export const requiredRoles = (required: string | string[]): string[] =>
  Array.isArray(required) ? [...required] : [required];

/** Null when `user` satisfies any of `required`; otherwise the 401 (no user) or 403 answer. */
export function roleFailure(user: AuthUser | undefined, required: string[]): RoleFailure | null {
  if (!user) return { status: 401, body: { error: 'unauthorized', message: 'Authentication required' } };
  if (!satisfiesAny(user.roles, required))
    return { status: 403, body: { error: 'forbidden', message: 'Insufficient role', required } };
  return null;
}

/**
 * `getUser`: the token `requireAuth` already resolved, else the verified access
 * cookie, else a verified bearer; then `GET /users/me`. Null without a credential
 * or when the API refuses or is unreachable.
 */
export async function getUserWith(
  core: AdapterCore,
  request: {
    resolvedToken: string | undefined;
    cookies: Record<string, string>;
    authorization: string | undefined;
    client: ClientInfo;
  },
): Promise<Me | null> {
  const token = request.resolvedToken ?? (await accessTokenFor(core, request.cookies, request.authorization));
  if (!token) return null;
  return loadUser(core, token, request.client);
}
