/** Admin, metrics and system-config answers (contract §3.15–§3.17). */
import * as z from 'zod/mini';
import { BOT_PROTECTION_PROVIDERS, CHALLENGE_ROUTES } from '../../config/bot-protection.js';
import { configSchemas, LOGIN_METHODS } from '../../config/keys.js';
import { oauthProviderSchema } from '../../config/oauth-provider.js';
import { CATEGORIES } from '../../services/events/categories.js';
import { Credential, Membership, Organization, Session } from './account.js';
import { IsoTimestamp } from './common.js';

/** `apiUserJson`: a user as admins see it. */
export const AdminUser = z.object({
  id: z.string(),
  email: z.string(),
  phone: z.nullable(z.string()),
  roles: z.array(z.string()),
  verified: z.boolean(),
  emailVerified: z.boolean(),
  phoneVerified: z.boolean(),
  revoked: z.boolean(),
  lastLogin: z.nullable(IsoTimestamp),
  createdAt: z.nullable(IsoTimestamp),
  updatedAt: z.nullable(IsoTimestamp),
});

/** `authEventJson`: one audit row. */
export const AuthEvent = z.object({
  id: z.string(),
  type: z.string(),
  userId: z.nullable(z.string()),
  actorUserId: z.nullable(z.string()),
  sessionId: z.nullable(z.string()),
  ipAddress: z.nullable(z.string()),
  userAgent: z.nullable(z.string()),
  metadata: z.unknown(),
  createdAt: z.nullable(IsoTimestamp),
});

/** `adminSessionJson`: a session plus its owner and active organization. */
export const AdminSession = z.extend(Session, { userId: z.string(), organizationId: z.nullable(z.string()) });

const total = z.number().check(z.int(), z.gte(0));

export const AdminUserListResponse = z.object({ users: z.array(AdminUser), total });
export const AdminUserResponse = z.object({ user: AdminUser });
export const AdminUserDetailResponse = z.object({
  user: AdminUser,
  sessions: z.array(AdminSession),
  credentials: z.array(Credential),
  totp: z.object({ enabled: z.boolean() }),
  organizations: z.array(z.extend(Organization, { membership: Membership })),
  events: z.array(AuthEvent),
  /** Unused recovery codes (docs/recovery-codes.md). */
  recoveryCodesRemaining: z.number().check(z.int(), z.gte(0)),
});
export const AdminUserAnomaliesResponse = z.object({
  suspiciousEvents: z.array(AuthEvent),
  relatedIps: z.array(z.string()),
  relatedAgents: z.array(z.string()),
});
export const DeviceReplacementResponse = z.object({
  userId: z.string(),
  revokedSessions: z.number().check(z.int(), z.gte(0)),
  removedCredentials: z.number().check(z.int(), z.gte(0)),
  disabledTotpCredentials: z.number().check(z.int(), z.gte(0)),
});
export const AdminSessionListResponse = z.object({ sessions: z.array(AdminSession), total });
export const AuthEventListResponse = z.object({ events: z.array(AuthEvent), total });
export const CountResponse = z.object({ count: z.number().check(z.int(), z.gte(0)) });
export const AdminOrganizationListResponse = z.object({ organizations: z.array(Organization), total });

// ---- §3.16 metrics ----
const count = z.number().check(z.int(), z.gte(0));
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
export const LoginStatsResponse = z.object({
  success: count,
  failed: count,
  successRate: z.number().check(z.gte(0), z.lte(1)),
});
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
  successRate24h: z.number().check(z.gte(0), z.lte(1)),
  otpUsage24h: count,
  passkeyUsage24h: count,
  smsRefused24h: count,
  databaseSize: z.nullable(z.number().check(z.int(), z.gte(0))),
});

// ---- §3.17 system config ----
export const PublicConfigResponse = z.object({
  loginMethods: z.array(z.enum(LOGIN_METHODS)),
  appName: z.string(),
  /** The challenge a client must solve before the listed routes (docs/bot-protection.md); null when off. */
  botProtection: z.nullable(
    z.object({
      provider: z.enum(BOT_PROTECTION_PROVIDERS),
      siteKey: z.string(),
      routes: z.array(z.enum(CHALLENGE_ROUTES)),
    }),
  ),
});
/**
 * `GET /system-config/associations`: what `svcWellKnown` builds the association
 * files from (all of it is published by them anyway).
 */
export const PublicAssociationsResponse = z.object({
  webOrigins: z.array(z.string()),
  android: z.array(z.object({ packageName: z.string(), sha256CertFingerprints: z.array(z.string()) })),
  apple: z.array(z.object({ appId: z.string(), applinksPaths: z.array(z.string()) })),
});
export const RolesResponse = z.object({ roles: z.array(z.string()), defaultRoles: z.array(z.string()) });
/** The stored config, key by key, with the same schemas the PATCH validates. */
export const SystemConfigResponse = z.object(configSchemas);
export const ConfigPatchResponse = z.object({
  success: z.literal(true),
  updatedKeys: z.array(z.enum(Object.keys(configSchemas) as [keyof typeof configSchemas])),
});

const providerConfig = oauthProviderSchema(false);

/**
 * An OAuth provider in the admin list: a valid entry is the full validated
 * config; an invalid one keeps its known fields and lists its issues. Never a secret.
 */
export const AdminOAuthProvider = z.extend(z.partial(providerConfig), {
  id: z.string(),
  secretConfigured: z.boolean(),
  valid: z.boolean(),
  issues: z.optional(z.array(z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string() }))),
});
/** A provider just created or changed: always valid, so the full config and whether its secret env is set. */
export const SavedOAuthProvider = z.extend(providerConfig, { secretConfigured: z.boolean() });
export const AdminOAuthProviderListResponse = z.object({ providers: z.array(AdminOAuthProvider) });
export const AdminOAuthProviderResponse = z.object({ provider: SavedOAuthProvider });
export const DeleteResponse = z.object({ success: z.literal(true), id: z.string() });
