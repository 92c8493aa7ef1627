/**
 * `POST /admin/users/:userId/recovery/device-replacement` (contract §3.15,
 * §4.5): admin:write plus fresh step-up, both checked before the body and the
 * user lookup, so an unprepared call reveals nothing about the target.
 */
import { Hono } from 'hono';
import * as z from 'zod/mini';
import type { AppEnv } from '../deps.js';
import { parseBody } from '../http/validate.js';
import { requireAccess } from '../middleware/auth.js';
import { requireRole } from '../middleware/require-role.js';
import { requireStepUp } from '../middleware/require-step-up.js';
import { replaceDevices } from '../services/admin/device-replacement.js';

const proofing = z.strictObject({
  method: z.enum(['in_person', 'remote_exception']),
  evidenceRef: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
  approver: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(200))),
});

// Admin bodies are strict: unknown fields are rejected (contract §0.4).
export const body = z
  .strictObject({
    revokeSessions: z._default(z.boolean(), true),
    removePasskeys: z._default(z.boolean(), true),
    disableTotp: z._default(z.boolean(), true),
    proofing,
  })
  .check(
    z.superRefine((b, ctx) => {
      if (b.proofing.method === 'remote_exception' && !b.proofing.approver) {
        ctx.addIssue({
          code: 'custom',
          path: ['proofing', 'approver'],
          message: 'approver is required for remote_exception',
        });
      }
    }),
  );

export const deviceReplacementRoutes = new Hono<AppEnv>().post(
  '/admin/users/:userId/recovery/device-replacement',
  requireAccess,
  requireRole('admin:write'),
  requireStepUp,
  async (c) => {
    const input = parseBody(c, body);
    const { user, session } = c.get('access');
    const result = await replaceDevices(c.get('deps'), {
      ...input,
      targetUserId: c.req.param('userId'),
      actor: { userId: user.id, sessionId: session.id, client: c.get('client') },
    });
    return c.json(result);
  },
);
