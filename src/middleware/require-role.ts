/**
 * Role gate (contract §0.3): roles come from the user row loaded with the
 * access credential, not from the token, so a demotion takes effect at once.
 */
import { createMiddleware } from 'hono/factory';
import { satisfiesAny } from '../../common/roles.js';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';

/** Must run after `requireAccess`. */
export function requireRole(...required: string[]) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const access = c.get('access');
    if (!satisfiesAny(access.user.roles, required)) throw fail('forbidden', 'Insufficient role', { required });
    await next();
  });
}
