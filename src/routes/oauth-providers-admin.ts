/**
 * `/system-config/oauth-providers` (contract §3.17): admin management of the
 * OAuth providers. Reads need `admin:read`, writes `admin:write`; bodies are
 * strict (unknown fields → 400) and no response ever carries a client secret.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../deps.js';
import { actorFields } from '../http/audit.js';
import { requireAccess } from '../middleware/auth.js';
import { requireRole } from '../middleware/require-role.js';
import {
  createProvider,
  deleteProvider,
  listProvidersForAdmin,
  patchProvider,
} from '../services/oauth/provider-admin.js';

const BASE = '/system-config/oauth-providers';

export const oauthProviderAdminRoutes = new Hono<AppEnv>()
  .get(BASE, requireAccess, requireRole('admin:read'), async (c) => {
    return c.json({ providers: await listProvidersForAdmin(c.get('deps')) });
  })
  .post(BASE, requireAccess, requireRole('admin:write'), async (c) => {
    const provider = await createProvider(c.get('deps'), c.get('body'), actorFields(c));
    return c.json({ provider }, 201);
  })
  .patch(`${BASE}/:id`, requireAccess, requireRole('admin:write'), async (c) => {
    const provider = await patchProvider(c.get('deps'), c.req.param('id'), c.get('body'), actorFields(c));
    return c.json({ provider });
  })
  .delete(`${BASE}/:id`, requireAccess, requireRole('admin:write'), async (c) => {
    return c.json(await deleteProvider(c.get('deps'), c.req.param('id'), actorFields(c)));
  });
