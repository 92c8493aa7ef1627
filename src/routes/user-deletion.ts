/**
 * `DELETE /users/delete` (contract §3.10): the signed-in user deletes their
 * own account. Step-up-capable users need a fresh step-up (+SU?, §3.6), so a
 * stolen access token alone cannot destroy a protected account.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../deps.js';
import { actorFields } from '../http/audit.js';
import { requireAccess } from '../middleware/auth.js';
import { requireStepUpIfCapable } from '../middleware/require-step-up.js';
import { deleteUserAccount } from '../services/admin/users.js';

export const userDeletionRoutes = new Hono<AppEnv>().delete(
  '/users/delete',
  requireAccess,
  requireStepUpIfCapable,
  async (c) => {
    await deleteUserAccount(c.get('deps'), c.get('access').user.id, actorFields(c), true);
    return c.json({ message: 'Success' });
  },
);
