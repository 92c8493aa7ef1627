/**
 * `GET /openapi.json`: the committed `docs/openapi.json`, which is
 * what `buildApiDocument()` returns (`npm run openapi` writes it, and
 * `test/openapi/document.test.ts` fails while it is stale). Serving the file
 * instead of building it from the schemas keeps zod's JSON Schema generator
 * and the operation tables out of the Workers bundle (−5 KB gzip); the body is
 * the same bytes. `createApp` mounts it only when `OPENAPI_ENABLED` allows
 * (off in production by default).
 */
import { Hono } from 'hono';
import document from '../../docs/openapi.json' with { type: 'json' };
import type { AppEnv } from '../deps.js';

export const openApiRoutes = new Hono<AppEnv>().get('/openapi.json', (c) => c.json(document));
