/**
 * Admin device replacement (contract §3.15) for a user who lost every factor
 * also voids their recovery codes (docs/recovery-codes.md): codes that stood
 * in for the removed factors must not come back to life when a new
 * authenticator is enrolled.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents, recoveryCodes } from '../../../src/db/schema.js';
import { createUser, signIn } from '../../helpers/factories.js';
import { generateCodes, totpStepUp, totpUser } from '../../helpers/recovery-codes.js';
import { enrollTotp } from '../../helpers/totp.js';

describe('device replacement and recovery codes', () => {
  it('voids the unused codes in the same batch, and records how many', async () => {
    const u = await totpUser();
    const codes = await generateCodes(u);
    const admin = await createUser(u.t, { roles: ['admin:write'] });
    const adminSession = await signIn(u.t, admin);
    const adminSecret = await enrollTotp(u.t, adminSession.token);
    await totpStepUp(u.t, adminSession.token, adminSecret);
    const res = await u.t.call('POST', `/admin/users/${u.user.id}/recovery/device-replacement`, {
      token: adminSession.token,
      body: { proofing: { method: 'in_person', evidenceRef: 'ticket-1' } },
    });
    expect(res.status).toBe(200);
    expect(await u.t.api.deps.db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, u.user.id))).toHaveLength(
      0,
    );
    const event = (await u.t.api.deps.db.select().from(authEvents).where(eq(authEvents.userId, u.user.id))).find(
      (e) => e.type === 'admin_device_replacement_recovery',
    );
    expect(event?.metadata).toMatchObject({ voidedRecoveryCodes: 10 });

    // Re-enrolled later: the old codes do not work again.
    const fresh = await signIn(u.t, u.user);
    const secret = await enrollTotp(u.t, fresh.token);
    await totpStepUp(u.t, fresh.token, secret);
    const old = await u.t.call('POST', '/step-up/recovery-code', { token: fresh.token, body: { code: codes[0] } });
    expect(old.status).toBe(403);
    expect(old.body.error).toBe('recovery_code_invalid');
  });
});
