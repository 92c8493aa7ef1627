/**
 * `deps.events.record` keeps an event whose `user_id` no longer exists (or never
 * did): the foreign-key failure is retried with `user_id` null and the id in
 * `metadata.missingUserId` (contract §2.10 audit is append-only; nothing is lost).
 * drizzle wraps the driver error ("Failed query: …"), so the FK text is on `cause`.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authEvents } from '../../../src/db/schema.js';
import { signedIn } from '../../helpers/admin.js';
import { makeApi } from '../../helpers/make-app.js';

describe('auth event recording', () => {
  it('keeps an event for a user id that does not exist, with the id in metadata', async () => {
    const t = await makeApi();
    const missing = '00000000-0000-4000-8000-00000000dead';
    await t.api.deps.events.record({ type: 'verify_otp_failed', userId: missing, metadata: { reason: 'wrong' } });
    const rows = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'verify_otp_failed'));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.userId).toBeNull();
    expect(rows[0]!.metadata).toEqual({ reason: 'wrong', missingUserId: missing });
    expect(t.logs.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('an admin revoke-all for an unknown user id is audited, not lost', async () => {
    const t = await makeApi();
    const admin = await signedIn(t, ['admin']);
    const missing = '00000000-0000-4000-8000-00000000beef';
    const res = await t.call('DELETE', `/admin/sessions/${missing}/revoke-all`, { token: admin.token });
    expect(res.status).toBe(200);
    const rows = await t.api.deps.db.select().from(authEvents).where(eq(authEvents.type, 'admin_session_revoked'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      userId: null,
      actorUserId: admin.user.id,
      metadata: { scope: 'all', revokedSessions: 0, missingUserId: missing },
    });
  });
});
