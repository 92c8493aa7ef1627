/**
 * Admin management of `oauth_providers` (contract §3.17, §6.4): list, create,
 * patch and delete single providers. Every write validates the whole provider
 * with the strict schema, rewrites the key with `updated_by` = the admin,
 * invalidates the local config cache and writes `system_config_updated`.
 * The client secret is never part of a provider: responses carry only
 * `secretConfigured` (whether the env variable named by `clientSecretEnv` is set).
 */
import * as z from 'zod/mini';
import { oauthProviderSchema, PROVIDER_FIELDS, type OAuthProviderConfig } from '../../config/oauth-provider.js';
import { clientSecretEnvProblem } from '../../config/oauth-secret-env.js';
import type { Deps } from '../../deps.js';
import { fail } from '../../errors.js';
import type { ActorFields } from '../events/actor.js';
import { readStoredConfig } from '../config/patch.js';
import { validateProviderEntries, type ProviderEntry } from './providers.js';
import { writeConfigKeys } from '../config/system-config.js';
import { safeParse } from '../../safe-parse.js';

type AdminDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'env' | 'events'>;

const issuesOf = (error: z.core.$ZodError) =>
  error.issues.map((i) => ({
    path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
    code: i.code,
    message: i.message,
  }));

const invalid = (error: z.core.$ZodError) =>
  fail('invalid_request', 'Request failed schema validation.', { details: { issues: issuesOf(error) } });

/** PATCH body: known fields only (values are checked on the merged provider); `null` resets a field. */
export const patchSchema = z.strictObject(
  Object.fromEntries(PROVIDER_FIELDS.map((f) => [f, z.optional(z.unknown())])) as Record<
    string,
    z.ZodMiniOptional<z.ZodMiniUnknown>
  >,
);

/**
 * Whether the named variable is set; never asked of a name a provider may not use (no oracle on the service's own env).
 */
const secretConfigured = (deps: AdminDeps, envName: unknown) =>
  typeof envName === 'string' &&
  clientSecretEnvProblem(envName, deps.env.oauthClientSecretEnvs) === null &&
  typeof deps.env.raw[envName] === 'string' &&
  deps.env.raw[envName] !== '';

/**
 * The admin view of one stored entry. A valid entry is shown parsed; an
 * invalid one shows only known fields that passed validation, so an unknown
 * key (say, a pasted secret) is never echoed.
 */
function adminView(deps: AdminDeps, e: ProviderEntry) {
  if (e.provider)
    return { ...e.provider, secretConfigured: secretConfigured(deps, e.provider.clientSecretEnv), valid: true };
  const bad = new Set(e.issues.map((i) => String(i.path[0] ?? '')));
  const known = Object.fromEntries(PROVIDER_FIELDS.filter((f) => f in e.raw && !bad.has(f)).map((f) => [f, e.raw[f]]));
  return {
    ...known,
    id: e.id,
    secretConfigured: !bad.has('clientSecretEnv') && secretConfigured(deps, e.raw.clientSecretEnv),
    valid: false,
    issues: e.issues,
  };
}

/** Known fields only (for events and merges of stored entries). */
const knownFields = (raw: Record<string, unknown>) =>
  Object.fromEntries(PROVIDER_FIELDS.filter((f) => f in raw).map((f) => [f, raw[f]]));

async function storedEntries(deps: AdminDeps): Promise<Record<string, unknown>[]> {
  const cfg = await readStoredConfig(deps);
  return cfg.oauth_providers as Record<string, unknown>[];
}

async function save(
  deps: AdminDeps,
  actor: ActorFields,
  next: Record<string, unknown>[],
  change: {
    action: 'create' | 'update' | 'delete';
    providerId: string;
    changedFields?: string[];
    before: unknown;
    after: unknown;
  },
) {
  await writeConfigKeys(deps.db, { oauth_providers: next as { id: string }[] }, actor.actorUserId, deps.clock);
  deps.config.invalidate();
  await deps.events.record({
    type: 'system_config_updated',
    userId: actor.actorUserId,
    ...actor,
    metadata: { updatedKeys: ['oauth_providers'], ...change },
  });
}

export async function listProvidersForAdmin(deps: AdminDeps) {
  const entries = validateProviderEntries(
    await storedEntries(deps),
    deps.env.production,
    deps.env.oauthClientSecretEnvs,
  );
  return entries.map((e) => adminView(deps, e));
}

export async function createProvider(deps: AdminDeps, body: unknown, actor: ActorFields) {
  const parsed = safeParse(oauthProviderSchema(deps.env.production, deps.env.oauthClientSecretEnvs), body ?? {});
  if (!parsed.success) throw invalid(parsed.error);
  const provider = parsed.data;
  const current = await storedEntries(deps);
  if (current.some((p) => p.id === provider.id)) throw fail('already_exists', 'OAuth provider already exists');
  await save(deps, actor, [...current, provider], {
    action: 'create',
    providerId: provider.id,
    before: null,
    after: provider,
  });
  return { ...provider, secretConfigured: secretConfigured(deps, provider.clientSecretEnv) };
}

export async function patchProvider(deps: AdminDeps, id: string, body: unknown, actor: ActorFields) {
  const parsedPatch = safeParse(patchSchema, body ?? {});
  if (!parsedPatch.success) throw invalid(parsedPatch.error);
  const current = await storedEntries(deps);
  const index = current.findIndex((p) => p.id === id);
  if (index < 0) throw fail('not_found', 'OAuth provider not found');
  const patch = parsedPatch.data;
  if ('id' in patch && patch.id !== undefined && patch.id !== id) {
    throw fail('invalid_request', 'Request failed schema validation.', {
      details: { issues: [{ path: ['id'], code: 'immutable', message: 'id cannot be changed' }] },
    });
  }
  if (Object.keys(patch).length === 0) throw fail('no_changes');
  const before = knownFields(current[index]!);
  const merged: Record<string, unknown> = { ...before };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null)
      delete merged[k]; // back to the default (or unset)
    else if (v !== undefined) merged[k] = v;
  }
  merged.id = id;
  const parsed = safeParse(oauthProviderSchema(deps.env.production, deps.env.oauthClientSecretEnvs), merged);
  if (!parsed.success) throw invalid(parsed.error);
  const provider: OAuthProviderConfig = parsed.data;
  const next = current.map((p, i) => (i === index ? provider : p));
  await save(deps, actor, next, {
    action: 'update',
    providerId: id,
    changedFields: Object.keys(patch),
    before,
    after: provider,
  });
  return { ...provider, secretConfigured: secretConfigured(deps, provider.clientSecretEnv) };
}

export async function deleteProvider(deps: AdminDeps, id: string, actor: ActorFields) {
  const current = await storedEntries(deps);
  const existing = current.find((p) => p.id === id);
  if (!existing) throw fail('not_found', 'OAuth provider not found');
  await save(
    deps,
    actor,
    current.filter((p) => p.id !== id),
    { action: 'delete', providerId: id, before: knownFields(existing), after: null },
  );
  return { success: true as const, id };
}
