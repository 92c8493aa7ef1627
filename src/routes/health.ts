import { Hono } from 'hono';
import type { AppEnv } from '../deps.js';
import { fail } from '../errors.js';
import { API_VERSION } from '../version.js';

/** `GET /health/*` and `GET /.well-known/jwks.json` (contract §3.1). */
export const healthRoutes = new Hono<AppEnv>()
  .get('/health/status', (c) => c.json({ message: 'System up' }))
  .get('/health/version', (c) => c.json({ message: API_VERSION }))
  .get('/.well-known/jwks.json', (c) => {
    const { keys } = c.get('deps');
    if (!keys.jwks.keys.length) throw fail('jwks_unavailable');
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(keys.jwks);
  });
