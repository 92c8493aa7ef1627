/** Admin, metrics and system-config routes (contract §3.15–§3.17); every one needs an admin role. */
import {
  AdminOAuthProviderListResponse,
  AdminOAuthProviderResponse,
  AdminOrganizationListResponse,
  AdminSessionListResponse,
  AdminUserAnomaliesResponse,
  AdminUserDetailResponse,
  AdminUserListResponse,
  AdminUserResponse,
  AnomalyListResponse,
  AuthEventListResponse,
  ConfigPatchResponse,
  CountResponse,
  DashboardResponse,
  DeleteResponse,
  DeviceReplacementResponse,
  EventSummaryResponse,
  GroupedSummaryResponse,
  LoginStatsResponse,
  PublicAssociationsResponse,
  PublicConfigResponse,
  RolesResponse,
  SystemConfigResponse,
  TimeseriesResponse,
} from '../http/responses/admin.js';
import { MemberListResponse, MembershipResponse, OrganizationResponse } from '../http/responses/account.js';
import { MessageResponse, RevokedCountResponse } from '../http/responses/common.js';
import { oauthProviderSchema } from '../config/oauth-provider.js';
import { configPatchSchema } from '../services/config/patch.js';
import { patchSchema as providerPatchSchema } from '../services/oauth/provider-admin.js';
import { eventsQuery } from '../routes/admin-events.js';
import { listQuery as organizationListQuery } from '../routes/admin-organizations.js';
import { listQuery as sessionListQuery } from '../routes/admin-sessions.js';
import {
  createBody as userCreateBody,
  listQuery as userListQuery,
  patchBody as userPatchBody,
} from '../routes/admin-users.js';
import { body as deviceReplacementBody } from '../routes/device-replacement.js';
import { anomaliesQuery, groupedQuery, seriesQuery, windowQuery } from '../routes/internal.js';
import { membersQuery, organizationBodies } from '../routes/organization-handlers.js';
import { op, type Operation } from './operation.js';

const A = 'access' as const;
const read = { role: 'admin:read' } as const;
const write = { role: 'admin:write' } as const;
const notFound = ['not_found'] as const;
const org = organizationBodies(true);

export const adminOperations: Operation[] = [
  op('GET', '/admin/users', 'List or search users', A, AdminUserListResponse, { ...read, query: userListQuery }),
  op('POST', '/admin/users', 'Create a verified user', A, [{ status: 201, schema: AdminUserResponse }], {
    ...write,
    body: userCreateBody,
    errors: ['already_exists', 'role_not_available'],
  }),
  op(
    'GET',
    '/admin/users/:userId',
    'A user with sessions, passkeys, TOTP, organizations and recent events',
    A,
    AdminUserDetailResponse,
    { ...read, errors: [...notFound] },
  ),
  op('PATCH', '/admin/users/:userId', 'Update a user (revoking ends every session)', A, AdminUserResponse, {
    ...write,
    body: userPatchBody,
    errors: [...notFound, 'already_exists', 'role_not_available'],
  }),
  op('DELETE', '/admin/users/:userId', 'Delete a user', A, MessageResponse, {
    ...write,
    errors: [...notFound, 'last_owner'],
  }),
  op(
    'GET',
    '/admin/users/:userId/anomalies',
    "A user's suspicious events and related IPs and agents",
    A,
    AdminUserAnomaliesResponse,
    { ...read, errors: [...notFound] },
  ),
  op(
    'POST',
    '/admin/users/:userId/recovery/device-replacement',
    'Recover an account that lost its devices',
    A,
    DeviceReplacementResponse,
    {
      ...write,
      stepUp: 'required',
      body: deviceReplacementBody,
      errors: [...notFound],
    },
  ),
  op('GET', '/admin/sessions', 'Every active session', A, AdminSessionListResponse, {
    ...read,
    query: sessionListQuery,
  }),
  op('GET', '/admin/sessions/:userId', "A user's active sessions", A, AdminSessionListResponse, read),
  op('DELETE', '/admin/sessions/by-id/:id', 'Revoke one session (its whole chain)', A, MessageResponse, {
    ...write,
    errors: [...notFound],
  }),
  op('DELETE', '/admin/sessions/:userId/revoke-all', 'Revoke every session of a user', A, RevokedCountResponse, write),
  op('GET', '/admin/auth-events', 'Audit events, filtered and paged', A, AuthEventListResponse, {
    ...read,
    query: eventsQuery,
  }),
  op('GET', '/admin/credential-count', 'Number of stored passkeys', A, CountResponse, read),
  op('GET', '/admin/organizations', 'List or search organizations', A, AdminOrganizationListResponse, {
    ...read,
    query: organizationListQuery,
  }),
  op('POST', '/admin/organizations', 'Create an organization', A, [{ status: 201, schema: OrganizationResponse }], {
    ...write,
    body: org.create,
    errors: ['already_exists'],
  }),
  op('GET', '/admin/organizations/:organizationId', 'One organization', A, OrganizationResponse, {
    ...read,
    errors: [...notFound],
  }),
  op('PATCH', '/admin/organizations/:organizationId', 'Update an organization', A, OrganizationResponse, {
    ...write,
    body: org.update,
    errors: [...notFound, 'already_exists'],
  }),
  op('DELETE', '/admin/organizations/:organizationId', 'Delete an organization', A, MessageResponse, {
    ...write,
    errors: [...notFound],
  }),
  op('GET', '/admin/organizations/:organizationId/members', 'Members of an organization', A, MemberListResponse, {
    ...read,
    query: membersQuery,
    errors: [...notFound],
  }),
  op(
    'POST',
    '/admin/organizations/:organizationId/members',
    'Add a member',
    A,
    [{ status: 201, schema: MembershipResponse }],
    {
      ...write,
      body: org.addMember,
      errors: [...notFound, 'already_exists', 'role_not_available'],
    },
  ),
  op(
    'PATCH',
    '/admin/organizations/:organizationId/members/:userId',
    "Change a member's roles or scopes",
    A,
    MembershipResponse,
    {
      ...write,
      body: org.updateMember,
      errors: [...notFound, 'last_owner', 'role_not_available'],
    },
  ),
  op('DELETE', '/admin/organizations/:organizationId/members/:userId', 'Remove a member', A, MessageResponse, {
    ...write,
    errors: [...notFound, 'last_owner'],
  }),
  op(
    'GET',
    '/internal/auth-events/summary',
    'Event counts by type (default window: the last 24 h)',
    A,
    EventSummaryResponse,
    { ...read, query: windowQuery },
  ),
  op('GET', '/internal/auth-events/timeseries', 'Event counts per hour or day', A, TimeseriesResponse, {
    ...read,
    query: seriesQuery,
  }),
  op('GET', '/internal/auth-events/login-stats', 'Sign-in successes and failures', A, LoginStatsResponse, {
    ...read,
    query: windowQuery,
  }),
  op('GET', '/internal/auth-events/grouped', 'Event counts grouped by type or category', A, GroupedSummaryResponse, {
    ...read,
    query: groupedQuery,
  }),
  op('GET', '/internal/security/anomalies', 'Recent suspicious events and lockouts', A, AnomalyListResponse, {
    ...read,
    query: anomaliesQuery,
  }),
  op('GET', '/internal/metrics/dashboard', 'Headline numbers of the last 24 h', A, DashboardResponse, read),
  op('GET', '/system-config/public', 'The public part of the configuration', 'none', PublicConfigResponse),
  op(
    'GET',
    '/system-config/associations',
    'Native apps and web origins for the association files (public, cacheable 300 s)',
    'none',
    PublicAssociationsResponse,
  ),
  op('GET', '/system-config/roles', 'Available and default roles', A, RolesResponse, read),
  op('GET', '/system-config/admin', 'The stored configuration (read fresh, audited)', A, SystemConfigResponse, read),
  op(
    'PATCH',
    '/system-config/admin',
    'Change configuration keys (validated, audited, cache invalidated)',
    A,
    ConfigPatchResponse,
    {
      ...write,
      body: configPatchSchema,
      errors: ['invalid_config', 'no_changes', 'role_not_available', 'role_in_use'],
    },
  ),
  op(
    'GET',
    '/system-config/oauth-providers',
    'OAuth providers with their validity (never a secret)',
    A,
    AdminOAuthProviderListResponse,
    read,
  ),
  op(
    'POST',
    '/system-config/oauth-providers',
    'Add an OAuth provider',
    A,
    [{ status: 201, schema: AdminOAuthProviderResponse }],
    {
      ...write,
      body: oauthProviderSchema(false),
      errors: ['already_exists'],
      description: 'Production additionally requires https endpoint URLs.',
    },
  ),
  op(
    'PATCH',
    '/system-config/oauth-providers/:id',
    'Change an OAuth provider (`null` resets a field)',
    A,
    AdminOAuthProviderResponse,
    {
      ...write,
      body: providerPatchSchema,
      errors: [...notFound, 'no_changes'],
    },
  ),
  op('DELETE', '/system-config/oauth-providers/:id', 'Remove an OAuth provider', A, DeleteResponse, {
    ...write,
    errors: [...notFound],
  }),
];
