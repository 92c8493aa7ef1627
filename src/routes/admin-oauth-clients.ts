/**
 * The provider's clients, admin API (docs/oauth-provider.md, "Clients"):
 * `/admin/oauth-clients`. Reads need `admin:read`, writes `admin:write`. A
 * confidential client's secret appears in exactly two answers, create and
 * rotate (both `Cache-Control: no-store`), and in no list, event or log.
 */
import { Hono } from 'hono';
import * as z from 'zod/mini';
import { SCOPE_PATTERN } from '../config/oauth-server.js';
import type { AppEnv } from '../deps.js';
import { actorFields } from '../http/audit.js';
import { pageQuery } from '../http/pagination.js';
import { parseBody, parseQuery } from '../http/validate.js';
import { requireAccess } from '../middleware/auth.js';
import { requireRole } from '../middleware/require-role.js';
import {
  createClient,
  deleteClient,
  listClients,
  patchClient,
  readClient,
  rotateClientSecret,
} from '../services/oauth-server/clients/admin.js';
import {
  AUTH_METHODS,
  GRANT_TYPES,
  MAX_REDIRECT_URIS,
  REDIRECT_URI_MAX_LENGTH,
} from '../services/oauth-server/clients/rules.js';

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(100));
const redirectUris = z
  .array(z.string().check(z.maxLength(REDIRECT_URI_MAX_LENGTH)))
  .check(z.minLength(1), z.maxLength(MAX_REDIRECT_URIS));
const scopes = z.array(z.string().check(z.regex(SCOPE_PATTERN, 'must be a scope name'))).check(z.maxLength(50));
const grantTypes = z.array(z.enum(GRANT_TYPES)).check(z.minLength(1), z.maxLength(GRANT_TYPES.length));
const clientUri = z.nullable(z.string().check(z.maxLength(2048)));

export const createClientBody = z.strictObject({
  name,
  type: z.enum(['confidential', 'public']),
  redirectUris,
  scopes,
  grantTypes: z.optional(grantTypes),
  tokenEndpointAuthMethod: z.optional(z.enum(AUTH_METHODS)),
  clientUri: z.optional(clientUri),
  skipConsent: z.optional(z.boolean()),
});

export const patchClientBody = z.strictObject({
  name: z.optional(name),
  redirectUris: z.optional(redirectUris),
  scopes: z.optional(scopes),
  grantTypes: z.optional(grantTypes),
  tokenEndpointAuthMethod: z.optional(z.enum(AUTH_METHODS)),
  clientUri: z.optional(clientUri),
  skipConsent: z.optional(z.boolean()),
});

export const listClientsQuery = z.object({
  ...pageQuery(50),
  registration: z.optional(z.enum(['admin', 'dynamic'])),
});

const BASE = '/admin/oauth-clients';
const read = [requireAccess, requireRole('admin:read')] as const;
const write = [requireAccess, requireRole('admin:write')] as const;
/** Answers that carry a secret: never cached by a browser or a proxy (RFC 9111 §5.2.2.5). */
const SECRET_HEADERS = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export const adminOAuthClientRoutes = new Hono<AppEnv>()
  .get(BASE, ...read, async (c) => {
    return c.json(await listClients(c.get('deps'), parseQuery(c, listClientsQuery)));
  })
  .post(BASE, ...write, async (c) => {
    const body = parseBody(c, createClientBody);
    return c.json(await createClient(c.get('deps'), body, actorFields(c)), 201, SECRET_HEADERS);
  })
  .get(`${BASE}/:clientId`, ...read, async (c) => {
    return c.json(await readClient(c.get('deps'), c.req.param('clientId')));
  })
  .patch(`${BASE}/:clientId`, ...write, async (c) => {
    const body = parseBody(c, patchClientBody);
    return c.json(await patchClient(c.get('deps'), c.req.param('clientId'), body, actorFields(c)));
  })
  .delete(`${BASE}/:clientId`, ...write, async (c) => {
    return c.json(await deleteClient(c.get('deps'), c.req.param('clientId'), actorFields(c)));
  })
  .post(`${BASE}/:clientId/secret`, ...write, async (c) => {
    return c.json(
      await rotateClientSecret(c.get('deps'), c.req.param('clientId'), actorFields(c)),
      200,
      SECRET_HEADERS,
    );
  });
