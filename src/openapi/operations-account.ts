/** Signed-in self-service routes (contract §3.9–§3.12, §3.14). */
import { MessageResponse, RevokedCountResponse } from '../http/responses/common.js';
import {
  CredentialResponse,
  MeResponse,
  MemberListResponse,
  MembershipResponse,
  OrganizationListResponse,
  OrganizationResponse,
  OrganizationSwitchResponse,
  SessionListResponse,
  StepUpFreshResponse,
  StepUpStatus,
  TotpEnrollmentStart,
  TotpStatus,
  WebAuthnOptions,
} from '../http/responses/account.js';
import {
  InvitationCreateResponse,
  InvitationListResponse,
  ReceivedInvitationListResponse,
} from '../http/responses/invitations.js';
import { deleteSchema, renameSchema } from '../routes/credentials.js';
import { invitationsQuery, inviteBody } from '../routes/organization-invitations.js';
import { membersQuery, organizationBodies } from '../routes/organization-handlers.js';
import { codeBody as totpCodeBody } from '../routes/totp.js';
import {
  assertionFinishSchema,
  assertionStartSchema,
  registerFinishSchema,
  registerStartQuerySchema,
  registerStartSchema,
} from '../routes/webauthn-schemas.js';
import { op, type Operation } from './operation.js';

const user = organizationBodies(false);
const A = 'access' as const;
const notFound = ['not_found'] as const;

export const accountOperations: Operation[] = [
  op('GET', '/users/me', 'The signed-in user, passkeys and organizations', A, MeResponse),
  op('POST', '/users/credentials', 'Rename a passkey', A, CredentialResponse, {
    body: renameSchema,
    errors: [...notFound],
  }),
  op('DELETE', '/users/credentials', 'Remove a passkey', A, MessageResponse, {
    body: deleteSchema,
    stepUp: 'if-capable',
    errors: [...notFound, 'last_credential'],
  }),
  op('DELETE', '/users/delete', 'Delete the signed-in account', A, MessageResponse, {
    stepUp: 'if-capable',
    errors: [...notFound, 'last_owner'],
  }),
  op('GET', '/sessions', 'Active sessions of the user', A, SessionListResponse),
  op('DELETE', '/sessions/:id', 'Revoke one session (its whole chain)', A, MessageResponse, { errors: [...notFound] }),
  op('DELETE', '/sessions', 'Revoke every other session', A, RevokedCountResponse),
  op('POST', '/webauthn/register/start', 'Passkey registration options', A, WebAuthnOptions, {
    body: registerStartSchema,
    query: registerStartQuerySchema,
    stepUp: 'if-capable',
  }),
  op('POST', '/webauthn/register/finish', 'Store a new passkey', A, CredentialResponse, {
    body: registerFinishSchema,
    stepUp: 'if-capable',
    errors: ['webauthn_registration_failed', 'prf_required', 'already_exists'],
  }),
  op('GET', '/step-up/status', 'Step-up freshness of the session', A, StepUpStatus),
  op('POST', '/step-up/webauthn/start', 'Passkey step-up options', A, WebAuthnOptions, {
    body: assertionStartSchema,
    errors: ['step_up_unavailable'],
  }),
  op('POST', '/step-up/webauthn/finish', 'Step up with a passkey assertion', A, StepUpFreshResponse, {
    body: assertionFinishSchema,
    errors: ['step_up_failed', 'step_up_unavailable', 'prf_output_not_allowed'],
  }),
  op('GET', '/totp/status', 'TOTP status of the user', A, TotpStatus),
  op(
    'POST',
    '/totp/enroll/start',
    'Start a TOTP enrollment (the only answer with the secret)',
    A,
    TotpEnrollmentStart,
    { stepUp: 'if-capable', errors: ['already_exists'] },
  ),
  op('POST', '/totp/enroll/verify', 'Confirm the TOTP enrollment with a code', A, MessageResponse, {
    body: totpCodeBody,
    stepUp: 'if-capable',
    errors: ['totp_verification_failed', ...notFound, 'account_locked'],
  }),
  op('POST', '/totp/disable', 'Disable TOTP with a current code', A, MessageResponse, {
    body: totpCodeBody,
    errors: ['totp_verification_failed', 'totp_code_already_used', ...notFound, 'account_locked'],
  }),
  op('POST', '/totp/verify-mfa', 'Step up with a TOTP code', A, StepUpFreshResponse, {
    body: totpCodeBody,
    errors: ['totp_verification_failed', 'totp_code_already_used', 'step_up_unavailable', 'account_locked'],
  }),
  op('GET', '/organizations', "The user's organizations", A, OrganizationListResponse),
  op(
    'POST',
    '/organizations',
    'Create an organization (the caller becomes its owner)',
    A,
    [{ status: 201, schema: OrganizationResponse }],
    {
      body: user.create,
      errors: ['already_exists'],
    },
  ),
  op('GET', '/organizations/:organizationId', 'One organization', A, OrganizationResponse, { errors: [...notFound] }),
  op('PATCH', '/organizations/:organizationId', 'Update an organization', A, OrganizationResponse, {
    body: user.update,
    errors: [...notFound, 'already_exists'],
  }),
  op(
    'POST',
    '/organizations/:organizationId/switch',
    'Make it the active organization: a new access token for the same session',
    A,
    OrganizationSwitchResponse,
    {
      errors: [...notFound],
    },
  ),
  op('GET', '/organizations/:organizationId/members', 'Members of an organization', A, MemberListResponse, {
    query: membersQuery,
    errors: [...notFound],
  }),
  // Users join by invitation (docs/contract-changes.md); the direct add is the admin route.
  op(
    'GET',
    '/organizations/invitations',
    'Pending invitations addressed to my verified email',
    A,
    ReceivedInvitationListResponse,
  ),
  op(
    'POST',
    '/organizations/invitations/:invitationId/accept',
    'Accept an invitation addressed to my verified email: the membership is created',
    A,
    MembershipResponse,
    {
      errors: [...notFound],
      description: "Someone else's, an expired, revoked or already used invitation: 404 `not_found`.",
    },
  ),
  op(
    'POST',
    '/organizations/invitations/:invitationId/decline',
    'Decline an invitation addressed to my verified email',
    A,
    MessageResponse,
    { errors: [...notFound] },
  ),
  op(
    'POST',
    '/organizations/:organizationId/invitations',
    'Invite an email address (manager); the same answer whether or not an account exists',
    A,
    [{ status: 201, schema: InvitationCreateResponse }],
    {
      body: inviteBody,
      errors: [...notFound, 'role_not_available', 'forbidden', 'rate_limited'],
      description:
        'A pending invitation for the same address is refreshed (same id, new roles and expiry). The invitee gets an `organization_invitation_email`.',
    },
  ),
  op(
    'GET',
    '/organizations/:organizationId/invitations',
    "An organization's invitations, pending first (manager)",
    A,
    InvitationListResponse,
    { query: invitationsQuery, errors: [...notFound] },
  ),
  op(
    'DELETE',
    '/organizations/:organizationId/invitations/:invitationId',
    'Revoke a pending invitation (manager)',
    A,
    MessageResponse,
    { errors: [...notFound] },
  ),
  op(
    'PATCH',
    '/organizations/:organizationId/members/:userId',
    "Change a member's roles or scopes",
    A,
    MembershipResponse,
    {
      body: user.updateMember,
      errors: [...notFound, 'last_owner', 'role_not_available'],
    },
  ),
  op('DELETE', '/organizations/:organizationId/members/:userId', 'Remove a member', A, MessageResponse, {
    errors: [...notFound, 'last_owner'],
  }),
];
