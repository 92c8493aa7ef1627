/**
 * The OAuth providers of the running config (contract §6.1, and §3.13
 * `GET /oauth/providers`). Each stored entry is validated with the full provider schema;
 * an invalid entry is hidden from login and reported once per config version
 * as a `system_config_error` event and a warning (never with values).
 */
import { oauthProviderSchema, type OAuthProviderConfig } from '../../config/oauth-provider.js';
import type { Deps } from '../../deps.js';
import { fail } from '../../errors.js';
import { safeParse } from '../../safe-parse.js';

export interface ProviderIssue {
  path: (string | number)[];
  message: string;
}

export interface ProviderEntry {
  /** The stored element as it is (may hold unknown keys: never echo it whole). */
  raw: Record<string, unknown>;
  id: string;
  /** The validated config, or null when the entry is invalid. */
  provider: OAuthProviderConfig | null;
  issues: ProviderIssue[];
}

type ProviderDeps = Pick<Deps, 'config' | 'env' | 'events' | 'log'>;

const memo = new WeakMap<object, { version: string; entries: ProviderEntry[] }>();

export function validateProviderEntries(
  raw: readonly Record<string, unknown>[],
  production: boolean,
  secretEnvAllowlist: readonly string[] = [],
): ProviderEntry[] {
  const schema = oauthProviderSchema(production, secretEnvAllowlist);
  return raw.map((entry) => {
    const parsed = safeParse(schema, entry);
    return {
      raw: entry,
      id: String(entry.id),
      provider: parsed.success ? parsed.data : null,
      issues: parsed.success
        ? []
        : parsed.error.issues.map((i) => ({
            path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
            message: i.message,
          })),
    };
  });
}

/** Every stored provider entry with its validation result. */
export async function loadProviderEntries(deps: ProviderDeps): Promise<ProviderEntry[]> {
  const cfg = await deps.config.get();
  const raw = cfg.oauth_providers as Record<string, unknown>[];
  const version = JSON.stringify(raw);
  const cached = memo.get(deps.config);
  if (cached && cached.version === version) return cached.entries;
  const entries = validateProviderEntries(raw, deps.env.production, deps.env.oauthClientSecretEnvs);
  memo.set(deps.config, { version, entries });
  for (const e of entries.filter((x) => !x.provider)) {
    const paths = e.issues.map((i) => i.path.join('.'));
    deps.log.log('warn', 'OAuth provider config is invalid; the provider is hidden', { providerId: e.id, paths });
    await deps.events.record({
      type: 'system_config_error',
      metadata: { key: 'oauth_providers', providerId: e.id, reason: 'invalid_provider', issues: e.issues },
    });
  }
  return entries;
}

/** Enabled and valid providers, or none when `oauth` is not a login method (contract §3.13). */
export async function usableProviders(deps: ProviderDeps): Promise<OAuthProviderConfig[]> {
  const cfg = await deps.config.get();
  if (!cfg.login_methods.includes('oauth')) return [];
  const entries = await loadProviderEntries(deps);
  return entries.flatMap((e) => (e.provider?.enabled ? [e.provider] : []));
}

/** The usable provider with this id, else 404 `oauth_provider_not_found`. */
export async function requireUsableProvider(deps: ProviderDeps, providerId: string): Promise<OAuthProviderConfig> {
  const provider = (await usableProviders(deps)).find((p) => p.id === providerId);
  if (!provider) throw fail('oauth_provider_not_found');
  return provider;
}
