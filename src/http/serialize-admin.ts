/** Wire shapes of the admin and organization routes (contract §3.14, §3.15). */
import type { MembershipRow, OrganizationRow, SessionRow } from '../db/schema.js';
import { membershipJson, organizationJson, sessionJson } from './serialize.js';

/** `Session & {userId, organizationId}`. */
export const adminSessionJson = (s: SessionRow, currentSessionId?: string) => ({
  ...sessionJson(s, currentSessionId),
  userId: s.userId,
  organizationId: s.organizationId,
});

/** `Organization & {membership?, memberCount?}`. */
export function organizationWith(
  o: OrganizationRow,
  extra: { membership?: MembershipRow | null; memberCount?: number } = {},
) {
  return {
    ...organizationJson(o),
    ...(extra.membership ? { membership: membershipJson(extra.membership) } : {}),
    ...(extra.memberCount !== undefined ? { memberCount: extra.memberCount } : {}),
  };
}
