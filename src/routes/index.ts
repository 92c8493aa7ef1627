/**
 * Every route group of the auth API, mounted at `/` by `createApp`. A feature
 * adds its group here (one import, one entry).
 */
import type { Hono } from 'hono';
import type { AppEnv } from '../deps.js';
import { credentialRoutes } from './credentials.js';
import { deviceReplacementRoutes } from './device-replacement.js';
import { healthRoutes } from './health.js';
import { oauthRoutes } from './oauth.js';
import { loginRoutes } from './login.js';
import { magicLinkRoutes } from './magic-link.js';
import { otpRoutes } from './otp.js';
import { registrationRoutes } from './registration.js';
import { oauthProviderAdminRoutes } from './oauth-providers-admin.js';
import { refreshRoutes } from './refresh.js';
import { sessionRoutes } from './sessions.js';
import { stepUpRoutes } from './step-up.js';
import { totpRoutes } from './totp.js';
import { userRoutes } from './users.js';
import { adminEventRoutes } from './admin-events.js';
import { adminOrganizationRoutes } from './admin-organizations.js';
import { adminSessionRoutes } from './admin-sessions.js';
import { adminUserRoutes } from './admin-users.js';
import { internalRoutes } from './internal.js';
import { organizationInvitationRoutes } from './organization-invitations.js';
import { organizationRoutes } from './organizations.js';
import { systemConfigRoutes } from './system-config.js';
import { userDeletionRoutes } from './user-deletion.js';
import { webauthnRoutes } from './webauthn.js';
import { recoveryCodeRoutes } from './recovery-codes.js';
import { contactChangeRoutes } from './contact-change.js';
import { adminWebhookRoutes } from './admin-webhooks.js';
import { adminOAuthClientRoutes } from './admin-oauth-clients.js';
import { oauthRegisterRoutes } from './oauth-register.js';
import { userOAuthAppRoutes } from './user-oauth-apps.js';
import { oauthServerRoutes } from './oauth-server.js';
import { oauthServerTokenRoutes } from './oauth-server-tokens.js';

export const routeGroups: Hono<AppEnv>[] = [
  healthRoutes,
  refreshRoutes,
  sessionRoutes,
  userRoutes,
  systemConfigRoutes,
  adminUserRoutes,
  adminSessionRoutes,
  adminEventRoutes,
  totpRoutes,
  deviceReplacementRoutes,
  oauthRoutes,
  loginRoutes,
  registrationRoutes,
  otpRoutes,
  magicLinkRoutes,
  // Before organizationRoutes: `/organizations/invitations` must not match `/organizations/:organizationId`.
  organizationInvitationRoutes,
  organizationRoutes,
  adminOrganizationRoutes,
  userDeletionRoutes,
  internalRoutes,
  webauthnRoutes,
  stepUpRoutes,
  credentialRoutes,
  oauthProviderAdminRoutes,
  recoveryCodeRoutes,
  contactChangeRoutes,
  adminWebhookRoutes,
  adminOAuthClientRoutes,
  oauthRegisterRoutes,
  userOAuthAppRoutes,
  oauthServerRoutes,
  oauthServerTokenRoutes,
];
