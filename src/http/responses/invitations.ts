/** Organization invitation answers (docs/contract-changes.md, "Organization invitations replace direct add"). */
import * as z from 'zod/mini';
import { deliveryField, IsoTimestamp } from './common.js';

const total = z.number().check(z.int(), z.gte(0));

/** `invitationJson`: the manager's view. */
export const Invitation = z.object({
  id: z.string(),
  organizationId: z.string(),
  email: z.string(),
  roles: z.array(z.string()),
  scopes: z.array(z.string()),
  status: z.enum(['pending', 'accepted', 'declined', 'revoked', 'expired']),
  invitedByUserId: z.nullable(z.string()),
  createdAt: IsoTimestamp,
  expiresAt: IsoTimestamp,
  acceptedAt: z.nullable(IsoTimestamp),
  declinedAt: z.nullable(IsoTimestamp),
  revokedAt: z.nullable(IsoTimestamp),
  acceptedByUserId: z.nullable(z.string()),
});

/** `receivedInvitationJson`: the invitee's view of a pending invitation. */
export const ReceivedInvitation = z.object({
  id: z.string(),
  organization: z.object({ id: z.string(), name: z.string(), slug: z.string() }),
  roles: z.array(z.string()),
  scopes: z.array(z.string()),
  invitedBy: z.nullable(z.object({ email: z.string() })),
  expiresAt: IsoTimestamp,
  createdAt: IsoTimestamp,
});

/**
 * `POST /organizations/:organizationId/invitations`: the same for every address
 * (`delivery` in external delivery mode only).
 */
export const InvitationCreateResponse = z.object({ invitation: Invitation, ...deliveryField });
/** The adapter's answer to the same route: `delivery` removed (§5.10). */
export const InvitationResponse = z.object({ invitation: Invitation });
export const InvitationListResponse = z.object({ invitations: z.array(Invitation), total });
export const ReceivedInvitationListResponse = z.object({ invitations: z.array(ReceivedInvitation) });
