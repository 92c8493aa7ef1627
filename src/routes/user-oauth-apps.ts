/**
 * The user's apps (docs/oauth-provider.md, "Consent and the user's apps
 * page"): `GET /users/me/oauth-apps` lists the clients the signed-in user
 * authorized; `DELETE /users/me/oauth-apps/:clientId` revokes the consent and
 * every grant of that client. Another user's client id answers 404 like an
 * unknown one.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../deps.js';
import { actorFields } from '../http/audit.js';
import { requireAccess } from '../middleware/auth.js';
import { listApps, revokeApp } from '../services/oauth-server/clients/user-apps.js';

export const userOAuthAppRoutes = new Hono<AppEnv>()
  .get('/users/me/oauth-apps', requireAccess, async (c) => {
    return c.json(await listApps(c.get('deps'), c.get('access').user.id));
  })
  .delete('/users/me/oauth-apps/:clientId', requireAccess, async (c) => {
    return c.json(await revokeApp(c.get('deps'), c.req.param('clientId'), actorFields(c)));
  });
