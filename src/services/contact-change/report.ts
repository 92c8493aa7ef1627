/**
 * "This was not me" (docs/contact-change.md): the report token the old
 * address got ends every session of the account and writes
 * `contact_change_reported`, once. The address itself is not reverted here:
 * an admin restores it after checking who is who (`PATCH /admin/users/:id`).
 * Also the admin side of a change: `recordAdminContactChange`.
 */
import { randomId } from '../../crypto/random.js';
import { contactChanges, type UserRow } from '../../db/schema.js';
import type { Deps, RequestContext } from '../../deps.js';
import { fail } from '../../errors.js';
import { revokeAllUserSessions } from '../../repositories/admin-users.js';
import { findReportableChange, markReported } from '../../repositories/contact-changes.js';
import type { MessagePayload } from '../delivery/types.js';
import type { ActorFields } from '../events/actor.js';
import { clientFields } from '../events/auth-events.js';
import type { OtpChannel } from '../otp/codes.js';
import { newReportToken, REPORT_TOKEN_TTL_MS, reportTokenHash } from './codes.js';
import { CONTACT_CHANGE_REVOKE_REASON } from './flow.js';
import { noticePayload, reportUrl } from './notice.js';

type ReportDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'events'>;

export const REPORTED_REVOKE_REASON = 'contact_change_reported';

export async function reportChange(deps: ReportDeps, token: string, client: RequestContext): Promise<void> {
  const now = new Date(deps.clock.now());
  const row = await findReportableChange(deps.db, reportTokenHash(token), now);
  // One answer for unknown, expired and used tokens.
  if (!row || (await markReported(deps.db, row.id, now)).rowsAffected !== 1) throw fail('invalid_verification_token');
  const revokedSessions = await revokeAllUserSessions(deps.db, row.userId, REPORTED_REVOKE_REASON, now.getTime());
  await deps.events.record({
    ...clientFields(client),
    type: 'contact_change_reported',
    userId: row.userId,
    metadata: { changeId: row.id, channel: row.channel, revokedSessions },
  });
}

/**
 * After an admin changed a user's email or phone: a completed change row
 * (so the old address can report it), the target's sessions revoked when
 * `revoke_sessions_on_contact_change` is on, `<channel>_changed` with the
 * acting admin, and the notice for the old address.
 */
export async function recordAdminContactChange(
  deps: ReportDeps,
  before: UserRow,
  channel: OtpChannel,
  newValue: string | null,
  actor: ActorFields,
): Promise<MessagePayload | null> {
  const nowMs = deps.clock.now();
  const token = newReportToken();
  const id = randomId();
  const oldValue = channel === 'email' ? before.email : before.phone;
  await deps.db.insert(contactChanges).values({
    id,
    userId: before.id,
    channel,
    oldValue,
    newValue: newValue ?? '',
    codeHash: '',
    expiresAt: new Date(nowMs),
    requestedByUserId: actor.actorUserId ?? null,
    completedAt: new Date(nowMs),
    reportTokenHash: reportTokenHash(token),
    reportExpiresAt: new Date(nowMs + REPORT_TOKEN_TTL_MS),
    createdAt: new Date(nowMs),
  });
  const { revoke_sessions_on_contact_change: revoke } = await deps.config.get();
  const revokedSessions = revoke
    ? await revokeAllUserSessions(deps.db, before.id, CONTACT_CHANGE_REVOKE_REASON, nowMs)
    : 0;
  await deps.events.record({
    type: `${channel}_changed`,
    userId: before.id,
    ...actor,
    metadata: { changeId: id, by: 'admin', revokedSessions },
  });
  const to = channel === 'email' ? oldValue : before.email;
  return to && newValue ? noticePayload(channel, to, newValue, await reportUrl(deps, token)) : null;
}
