/** Passkey management under `/users/credentials` (contract §3.10); the list is part of `GET /users/me`. */
import { Hono } from 'hono';
import * as z from 'zod';
import type { AppEnv } from '../deps.js';
import { credentialJson } from '../http/serialize.js';
import { parseBody } from '../http/validate.js';
import { requireAccess } from '../middleware/auth.js';
import { requireStepUpIfCapable } from '../middleware/require-step-up.js';
import { deleteCredential, renameCredential } from '../services/webauthn/credential-management.js';

export const idSchema = z.string().min(1).max(2048);
export const renameSchema = z.object({
  id: idSchema,
  friendlyName: z.string().min(1).max(128).nullable().optional(),
  deviceInfo: z.string().max(256).optional(),
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
