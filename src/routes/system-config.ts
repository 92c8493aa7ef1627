/**
 * System config routes (contract §3.17, §6): the public subset, the role
 * lists, the full admin view and the admin PATCH. The OAuth-provider routes
 * live in their own group.
 */
import { Hono } from 'hono';
import { publicBotProtection } from '../config/bot-protection.js';
import { ConfigError } from '../config/config-error.js';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { actorFields } from '../http/audit.js';
import { requireAccess } from '../middleware/auth.js';
import { requireRole } from '../middleware/require-role.js';
import { applyConfigPatch, readStoredConfig } from '../services/config/patch.js';
import { publicAssociations, PUBLIC_ASSOCIATIONS_MAX_AGE_SECONDS } from '../services/config/associations.js';

export const systemConfigRoutes = new Hono<AppEnv>()
  .get('/system-config/public', async (c) => {
    const cfg = await c.get('deps').config.get();
    return c.json({
      loginMethods: cfg.login_methods,
      appName: cfg.app_name,
      botProtection: publicBotProtection(cfg.bot_protection),
    });
  })
  .get('/system-config/associations', async (c) => {
    // Public by nature: the OS and browsers fetch the files built from it without credentials.
    const body = publicAssociations(await c.get('deps').config.get());
    c.header('Cache-Control', `public, max-age=${PUBLIC_ASSOCIATIONS_MAX_AGE_SECONDS}`);
    return c.json(body);
  })
  .get('/system-config/roles', requireAccess, requireRole('admin:read'), async (c) => {
    const cfg = await c.get('deps').config.get();
    return c.json({ roles: cfg.available_roles, defaultRoles: cfg.default_roles });
  })
  .get('/system-config/admin', requireAccess, requireRole('admin:read'), async (c) => {
    const deps = c.get('deps');
    const actor = actorFields(c);
    try {
      // Read the table, not the cache: an admin sees what is stored now.
      const cfg = await readStoredConfig(deps);
      await deps.events.record({ type: 'system_config_read', userId: actor.actorUserId, ...actor });
      return c.json(cfg);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      await deps.events.record({
        type: 'system_config_error',
        userId: actor.actorUserId,
        ...actor,
        metadata: { phase: 'read', key: err.key },
      });
      deps.log.log('error', 'stored system config is invalid', { key: err.key, error: err.message });
      throw fail('internal_error');
    }
  })
  .patch('/system-config/admin', requireAccess, requireRole('admin:write'), async (c) => {
    const result = await applyConfigPatch(c.get('deps'), c.get('body'), actorFields(c));
    return c.json({ success: true, updatedKeys: result.updatedKeys });
  });
