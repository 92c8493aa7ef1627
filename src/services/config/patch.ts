/**
 * `PATCH /system-config/admin` (contract §6.4): a strict object of known keys,
 * merged over the current config, cross-key rules checked on the merged result,
 * one batched write with `updated_by` = the admin, cache invalidated.
 */
import * as z from 'zod/mini';
import { SECRET_ENV_MESSAGE, siteverifyUrlProblem } from '../../config/bot-protection.js';
import { challengeSecretEnvAllowed } from '../../config/bot-protection-secret.js';
import { oauthProviderSchema } from '../../config/oauth-provider.js';
import {
  CONFIG_KEYS,
  configSchemas,
  crossKeyIssues,
  type ConfigKey,
  type SystemConfigValues,
} from '../../config/keys.js';
import type { Deps } from '../../deps.js';
import { fail, type ApiError } from '../../errors.js';
import { readConfigRows, rolesHeldByUsers } from '../../repositories/system-config.js';
import type { ActorFields } from '../events/actor.js';
import { validateConfig, writeConfigKeys } from './system-config.js';
import { safeParse } from '../../safe-parse.js';

/** Every key optional, unknown keys rejected. */
export const configPatchSchema = z.strictObject(
  Object.fromEntries(CONFIG_KEYS.map((k) => [k, z.optional(configSchemas[k])])) as {
    [K in ConfigKey]: z.ZodMiniOptional<(typeof configSchemas)[K]>;
  },
);

export type ConfigPatch = Partial<SystemConfigValues>;

type PatchDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'events' | 'env'>;

/** Reads the stored config fresh from the table (bypassing the cache) and validates it. */
export async function readStoredConfig(deps: Pick<Deps, 'db'>): Promise<SystemConfigValues> {
  return validateConfig(await readConfigRows(deps.db));
}

/** Cross-key rules of §6.4, in a fixed order so each refusal is deterministic. */
async function crossKeyRefusal(
  deps: PatchDeps,
  before: SystemConfigValues,
  merged: SystemConfigValues,
): Promise<ApiError | null> {
  const notAvailable = crossKeyIssues(merged)[0];
  // No role names in the body: they are the caller's own input (§0.4).
  if (notAvailable)
    return fail('role_not_available', undefined, {
      details: {
        issues: [
          {
            path: ['default_roles'],
            code: 'role_not_available',
            message: 'Every default role must be in available_roles',
          },
        ],
      },
    });

  const dropped = before.available_roles.filter((r) => !merged.available_roles.includes(r));
  const droppedDefaults = dropped.filter((r) => before.default_roles.includes(r));
  if (droppedDefaults.length) {
    return fail('invalid_config', 'Invalid system config payload', {
      details: {
        issues: [
          {
            path: ['available_roles'],
            code: 'default_role_removed',
            message: 'available_roles cannot drop a role that is a current default role',
          },
        ],
      },
    });
  }
  const held = await rolesHeldByUsers(deps.db, dropped);
  // The role name comes from config, never from the caller's input (§0.4).
  if (held.length) return fail('role_in_use', `Role "${held[0]}" is currently assigned to users and cannot be removed`);
  return null;
}

/**
 * Who applies a patch: the signed-in admin of the PATCH route, or no user
 * (the `svc config set` command line: `updated_by` null, events without actor).
 */
export type PatchActor = Omit<ActorFields, 'actorUserId' | 'sessionId'> & {
  actorUserId: string | null;
  sessionId: string | null;
};

export interface PatchResult {
  updatedKeys: ConfigKey[];
}

/**
 * Validates and applies a patch. Every refusal writes `system_config_error`
 * with the reason and the key names (never the submitted values).
 */
export async function applyConfigPatch(deps: PatchDeps, body: unknown, actor: PatchActor): Promise<PatchResult> {
  const refuse = async (err: ApiError, keys: string[]): Promise<never> => {
    await deps.events.record({
      type: 'system_config_error',
      userId: actor.actorUserId,
      ...actor,
      metadata: { phase: 'patch', reason: err.code, keys },
    });
    throw err;
  };
  const submittedKeys = body && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body).slice(0, 50) : [];
  const parsed = safeParse(configPatchSchema, body ?? {});
  if (!parsed.success) {
    await refuse(
      fail('invalid_request', 'Request failed schema validation.', {
        details: {
          issues: parsed.error.issues.map((i) => ({
            path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
            code: i.code,
            message: i.message,
          })),
        },
      }),
      submittedKeys,
    );
  }
  const patch = Object.fromEntries(Object.entries(parsed.data!).filter(([, v]) => v !== undefined)) as ConfigPatch;
  // Boot tolerates an invalid provider (it is hidden, §6.1); an admin write must not create one.
  const providerIssues = (patch.oauth_providers ?? []).flatMap((p, i) => {
    const r = safeParse(oauthProviderSchema(deps.env.production, deps.env.oauthClientSecretEnvs), p);
    return r.success
      ? []
      : r.error.issues.map((x) => ({
          path: ['oauth_providers', i, ...x.path.map((k) => (typeof k === 'symbol' ? String(k) : k))],
          code: x.code,
          message: x.message,
        }));
  });
  // The challenge secret is posted to `siteverifyUrl`: production accepts only the provider's hosts.
  const bot = patch.bot_protection;
  const urlProblem =
    bot && bot.provider !== 'none' && bot.siteverifyUrl
      ? siteverifyUrlProblem(bot.provider, bot.siteverifyUrl, deps.env.production)
      : null;
  if (urlProblem)
    providerIssues.push({ path: ['bot_protection', 'siteverifyUrl'], code: 'custom', message: urlProblem });
  if (bot && bot.provider !== 'none' && !challengeSecretEnvAllowed(bot.secretEnv))
    providerIssues.push({ path: ['bot_protection', 'secretEnv'], code: 'custom', message: SECRET_ENV_MESSAGE });
  if (providerIssues.length)
    await refuse(
      fail('invalid_request', 'Request failed schema validation.', { details: { issues: providerIssues } }),
      submittedKeys,
    );
  const updatedKeys = CONFIG_KEYS.filter((k) => k in patch);
  if (updatedKeys.length === 0) await refuse(fail('no_changes'), []);

  const before = await readStoredConfig(deps);
  const merged = { ...before, ...patch } as SystemConfigValues;
  const refusal = await crossKeyRefusal(deps, before, merged);
  if (refusal) await refuse(refusal, updatedKeys);

  await writeConfigKeys(deps.db, patch, actor.actorUserId, deps.clock);
  deps.config.invalidate();
  await deps.events.record({
    type: 'system_config_updated',
    userId: actor.actorUserId,
    ...actor,
    metadata: {
      updatedKeys,
      before: Object.fromEntries(updatedKeys.map((k) => [k, before[k]])),
      after: Object.fromEntries(updatedKeys.map((k) => [k, merged[k]])),
    },
  });
  return { updatedKeys };
}
