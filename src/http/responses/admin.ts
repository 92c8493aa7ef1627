/** Admin, metrics and system-config answers (contract §3.15–§3.17). */
import * as z from 'zod';
import { configSchemas, LOGIN_METHODS } from '../../config/keys.js';
import { oauthProviderSchema } from '../../config/oauth-provider.js';
import { CATEGORIES } from '../../services/event-categories.js';
import { Credential, Membership, Organization, Session } from './account.js';
import { IsoTimestamp } from './common.js';

/** `apiUserJson`: a user as admins see it. */
export const AdminUser = z.object({
  id: z.string(),
  email: z.string(),
  phone: z.string().nullable(),
  roles: z.array(z.string()),
  verified: z.boolean(),
  emailVerified: z.boolean(),
  phoneVerified: z.boolean(),
  revoked: z.boolean(),
  lastLogin: IsoTimestamp.nullable(),
  createdAt: IsoTimestamp.nullable(),
  updatedAt: IsoTimestamp.nullable(),
});

/** `authEventJson`: one audit row. */
export const AuthEvent = z.object({
  id: z.string(),
  type: z.string(),
  userId: z.string().nullable(),
  actorUserId: z.string().nullable(),
  sessionId: z.string().nullable(),
  ipAddress: z.string().nullable(),
  userAgent: z.string().nullable(),
  metadata: z.unknown(),
  createdAt: IsoTimestamp.nullable(),
});

/** `adminSessionJson`: a session plus its owner and active organization. */
export const AdminSession = Session.extend({ userId: z.string(), organizationId: z.string().nullable() });

const total = z.number().int().min(0);

export const AdminUserListResponse = z.object({ users: z.array(AdminUser), total });
export const AdminUserResponse = z.object({ user: AdminUser });
export const AdminUserDetailResponse = z.object({
  user: AdminUser,
  sessions: z.array(AdminSession),
  credentials: z.array(Credential),
  totp: z.object({ enabled: z.boolean() }),
  organizations: z.array(Organization.extend({ membership: Membership })),
  events: z.array(AuthEvent),
});
export const AdminUserAnomaliesResponse = z.object({ suspiciousEvents: z.array(AuthEvent), relatedIps: z.array(z.string()), relatedAgents: z.array(z.string()) });
export const DeviceReplacementResponse = z.object({
  userId: z.string(),
  revokedSessions: z.number().int().min(0),
  removedCredentials: z.number().int().min(0),
  disabledTotpCredentials: z.number().int().min(0),
});
export const AdminSessionListResponse = z.object({ sessions: z.array(AdminSession), total });
export const AuthEventListResponse = z.object({ events: z.array(AuthEvent), total });
export const CountResponse = z.object({ count: z.number().int().min(0) });
export const AdminOrganizationListResponse = z.object({ organizations: z.array(Organization), total });

// ---- §3.16 metrics ----
const count = z.number().int().min(0);
export const EventSummaryResponse = z.object({ summary: z.array(z.object({ type: z.string(), count })) });
export const TimeseriesResponse = z.object({
  interval: z.enum(['hour', 'day']),
  buckets: z.array(
    z.object({
      start: IsoTimestamp,
      success: count,
      failed: count,
      total: count,
      categories: z.record(z.enum(CATEGORIES), count),
      /** Events per type in the bucket. */
      byType: z.record(z.string(), count),
      /** Issued sessions by sign-in method. */
      signInsByMethod: z.record(z.string(), count),
      /** Codes sent by channel (email, sms). */
      otpSendsByChannel: z.record(z.string(), count),
    }),
  ),
});
export const LoginStatsResponse = z.object({ success: count, failed: count, successRate: z.number().min(0).max(1) });
export const GroupedSummaryResponse = z.object({
  summary: z.array(z.object({ key: z.string(), count })),
  outcomes: z.object({ success: count, failed: count, suspicious: count }),
});
export const AnomalyListResponse = z.object({ anomalies: z.array(AuthEvent), total });
export const DashboardResponse = z.object({
  totalUsers: count,
  activeSessions: count,
  newUsers24h: count,
  loginSuccess24h: count,
  loginFailed24h: count,
  successRate24h: z.number().min(0).max(1),
  otpUsage24h: count,
  passkeyUsage24h: count,
  smsRefused24h: count,
  databaseSize: z.number().int().min(0).nullable(),
});

// ---- §3.17 system config ----
export const PublicConfigResponse = z.object({ loginMethods: z.array(z.enum(LOGIN_METHODS)), appName: z.string() });
/** `GET /system-config/associations`: what `svcWellKnown` builds the association files from (all of it is published by them anyway). */
export const PublicAssociationsResponse = z.object({
  webOrigins: z.array(z.string()),
  android: z.array(z.object({ packageName: z.string(), sha256CertFingerprints: z.array(z.string()) })),
  apple: z.array(z.object({ appId: z.string(), applinksPaths: z.array(z.string()) })),
});
export const RolesResponse = z.object({ roles: z.array(z.string()), defaultRoles: z.array(z.string()) });
/** The stored config, key by key, with the same schemas the PATCH validates. */
export const SystemConfigResponse = z.object(configSchemas);
export const ConfigPatchResponse = z.object({ success: z.literal(true), updatedKeys: z.array(z.enum(Object.keys(configSchemas) as [keyof typeof configSchemas])) });

const providerConfig = oauthProviderSchema(false);

/**
 * An OAuth provider in the admin list: a valid entry is the full validated
 * config; an invalid one keeps its known fields and lists its issues. Never a secret.
 */
export const AdminOAuthProvider = providerConfig.partial().extend({
  id: z.string(),
  secretConfigured: z.boolean(),
  valid: z.boolean(),
  issues: z.array(z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string() })).optional(),
});
/** A provider just created or changed: always valid, so the full config and whether its secret env is set. */
export const SavedOAuthProvider = providerConfig.extend({ secretConfigured: z.boolean() });
export const AdminOAuthProviderListResponse = z.object({ providers: z.array(AdminOAuthProvider) });
export const AdminOAuthProviderResponse = z.object({ provider: SavedOAuthProvider });
export const DeleteResponse = z.object({ success: z.literal(true), id: z.string() });
