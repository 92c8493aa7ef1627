/** The OAuth provider's clients (docs/oauth-provider.md, "Clients"): admin API, the user's apps, dynamic registration. */
import {
  OAuthAppListResponse,
  OAuthAppRevokedResponse,
  OAuthClientListResponse,
  OAuthClientResponse,
  OAuthClientWithSecretResponse,
  OAuthRegistrationResponse,
} from '../http/responses/oauth-clients.js';
import { MessageResponse } from '../http/responses/common.js';
import { createClientBody, listClientsQuery, patchClientBody } from '../routes/admin-oauth-clients.js';
import { op, type Operation } from './operation.js';

const A = 'access' as const;
const read = { role: 'admin:read' } as const;
const write = { role: 'admin:write' } as const;
const RULES =
  'Redirect URIs are matched exactly: absolute, no fragment, no wildcard, no credentials; https in production, except a loopback IP over http (`http://127.0.0.1:…`, `http://[::1]:…`) or a private-use scheme (`com.example.app:/cb`) for a public client. Scopes: the standard ones, `oauth_server.scopes` and the resources’ scopes. A refused field is 400 `invalid_request` with `details.issues[].path` naming it.';

export const oauthClientOperations: Operation[] = [
  op('GET', '/admin/oauth-clients', 'OAuth clients, newest first (never a secret)', A, OAuthClientListResponse, {
    ...read,
    query: listClientsQuery,
  }),
  op(
    'POST',
    '/admin/oauth-clients',
    'Create an OAuth client; a confidential client’s secret is in this answer only',
    A,
    [{ status: 201, schema: OAuthClientWithSecretResponse }],
    { ...write, body: createClientBody, description: RULES },
  ),
  op('GET', '/admin/oauth-clients/:clientId', 'One OAuth client', A, OAuthClientResponse, {
    ...read,
    errors: ['oauth_client_not_found'],
  }),
  op('PATCH', '/admin/oauth-clients/:clientId', 'Change an OAuth client (not its type)', A, OAuthClientResponse, {
    ...write,
    body: patchClientBody,
    errors: ['oauth_client_not_found', 'no_changes'],
    description: RULES,
  }),
  op(
    'DELETE',
    '/admin/oauth-clients/:clientId',
    'Delete an OAuth client with its consents, grants and tokens',
    A,
    MessageResponse,
    { ...write, errors: ['oauth_client_not_found'] },
  ),
  op(
    'POST',
    '/admin/oauth-clients/:clientId/secret',
    'New client secret (in this answer only); the old one stops working at once',
    A,
    OAuthClientWithSecretResponse,
    { ...write, errors: ['oauth_client_not_found', 'oauth_client_not_confidential'] },
  ),
  op('GET', '/users/me/oauth-apps', 'The apps (OAuth clients) the user authorized', A, OAuthAppListResponse),
  op(
    'DELETE',
    '/users/me/oauth-apps/:clientId',
    'Revoke an app: forget the consent and end every grant (its refresh tokens stop working)',
    A,
    OAuthAppRevokedResponse,
    { errors: ['oauth_client_not_found'] },
  ),
  op(
    'POST',
    '/oauth2/register',
    'RFC 7591 dynamic client registration (off unless oauth_server.dynamicRegistration.enabled)',
    'none',
    [{ status: 201, schema: OAuthRegistrationResponse }],
    {
      errors: ['oauth_registration_disabled'],
      description:
        'Takes the RFC 7591 §2 metadata (`redirect_uris`, `client_name`, `grant_types`, `response_types`, `token_endpoint_auth_method`, `scope`, `client_uri`; others are ignored). Refusals are 400 in the RFC 7591 §3.2.2 format `{error, error_description}` with `invalid_redirect_uri` or `invalid_client_metadata`. Limited to `dynamicRegistration.perIpPerHour` requests per client IP (429 `rate_limited`). Registered clients are `registration: "dynamic"`, always ask for consent, and are deleted after `unusedExpiryDays` without a token request.',
    },
  ),
];
