/**
 * `GET /openapi.json` (issue 21): the document of `buildApiDocument()`,
 * built on the first request and kept, so importing this module does no work.
 * `createApp` mounts it only when `OPENAPI_ENABLED` allows (off in production
 * by default).
 */
import { Hono } from 'hono';
import type { AppEnv } from '../deps.js';
import { buildApiDocument } from './document.js';
import type { JsonSchema } from './components.js';

let cached: JsonSchema | null = null;

export const openApiRoutes = new Hono<AppEnv>().get('/openapi.json', (c) => {
  cached ??= buildApiDocument();
  return c.json(cached);
});
