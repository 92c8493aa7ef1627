/** Joining an organization the way users do: a manager invites, the member accepts. */
import type { SignedIn } from './admin.js';
import type { CallResult, TestApi } from './make-app.js';

/** Invites `member` (by email) to `organizationId` and accepts as them; returns the accept answer (`{membership}`). */
export async function joinByInvitation(t: TestApi, manager: SignedIn, organizationId: string, member: SignedIn, grant: { roles?: string[]; scopes?: string[] } = {}): Promise<CallResult> {
  const invited = await t.call('POST', `/organizations/${organizationId}/invitations`, { token: manager.token, body: { email: member.user.email, ...grant } });
  if (invited.status !== 201) return invited;
  return t.call('POST', `/organizations/invitations/${invited.body.invitation.id}/accept`, { token: member.token });
}
