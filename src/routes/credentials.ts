/** Passkey management under `/users/credentials` (contract §3.10); the list is part of `GET /users/me`. */
import { Hono } from 'hono';
import * as z from 'zod/mini';
import type { AppEnv } from '../deps.js';
import { credentialJson } from '../http/serialize.js';
import { parseBody } from '../http/validate.js';
import { requireAccess } from '../middleware/auth.js';
import { requireStepUpIfCapable } from '../middleware/require-step-up.js';
import { deleteCredential, renameCredential } from '../services/webauthn/credential-management.js';

export const idSchema = z.string().check(z.minLength(1), z.maxLength(2048));
export const renameSchema = z.object({
  id: idSchema,
  friendlyName: z.optional(z.nullable(z.string().check(z.minLength(1), z.maxLength(128)))),
  deviceInfo: z.optional(z.string().check(z.maxLength(256))),
});
export const deleteSchema = z.object({ id: idSchema });

export const credentialRoutes = new Hono<AppEnv>()
  .post('/users/credentials', requireAccess, async (c) => {
    const body = parseBody(c, renameSchema);
    const row = await renameCredential(c.get('deps'), { auth: c.get('access'), client: c.get('client'), ...body });
    return c.json({ message: 'Credential updated', credential: credentialJson(row) });
  })
  .delete('/users/credentials', requireAccess, requireStepUpIfCapable, async (c) => {
    const { id } = parseBody(c, deleteSchema);
    await deleteCredential(c.get('deps'), { auth: c.get('access'), client: c.get('client'), id });
    return c.json({ message: 'Credential deleted' });
  });
