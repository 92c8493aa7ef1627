/**
 * The system config a boot would end up with, computed without writing:
 * per key the stored row, else the env seed, else the built-in default, in
 * the bootstrap order of src/services/config/system-config.ts (development derives
 * `rpid`/`origins` from ISSUER; production has no default for them).
 */
import { ConfigError } from '../src/config/config-error.js';
import { BUILT_IN_DEFAULTS, CONFIG_KEYS, configSchemas, ENV_SEEDS, type ConfigKey } from '../src/config/keys.js';
import type { Db } from '../src/db/client.js';
import { readConfigRows } from '../src/repositories/system-config.js';
import { safeParse } from '../src/safe-parse.js';
import { parseSeed } from '../src/services/config/system-config.js';

export interface KeyState {
  key: ConfigKey;
  source: 'row' | 'env' | 'default' | 'missing';
  value?: unknown;
  /** Why this key would stop a boot (invalid row or seed, or nothing at all). */
  problem?: string;
}

function fromRow(key: ConfigKey, raw: unknown): KeyState {
  const parsed = safeParse(configSchemas[key], raw);
  if (parsed.success) return { key, source: 'row', value: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
  return { key, source: 'row', problem: `stored value is invalid${where}: ${issue?.message ?? 'failed validation'}` };
}

/** Outside production a boot derives `rpid`/`origins` from ISSUER (services/config/system-config.ts). */
function developmentDefault(key: ConfigKey, env: Record<string, string | undefined>): unknown {
  if (env['NODE_ENV']?.trim() === 'production' || (key !== 'rpid' && key !== 'origins')) return undefined;
  try {
    const issuer = new URL(env['ISSUER']?.trim() ?? '');
    return key === 'rpid' ? issuer.hostname : [issuer.origin];
  } catch {
    return undefined;
  }
}

function fromSeedOrDefault(key: ConfigKey, env: Record<string, string | undefined>): KeyState {
  const [envName] = ENV_SEEDS[key];
  const raw = env[envName];
  if (raw !== undefined && raw.trim() !== '') {
    try {
      return { key, source: 'env', value: parseSeed(key, raw) };
    } catch (err) {
      return { key, source: 'env', problem: err instanceof ConfigError ? err.message : String(err) };
    }
  }
  if (BUILT_IN_DEFAULTS[key] !== undefined) return { key, source: 'default', value: BUILT_IN_DEFAULTS[key] };
  const derived = developmentDefault(key, env);
  if (derived !== undefined) return { key, source: 'default', value: derived };
  return { key, source: 'missing', problem: `no row, no ${envName} seed and no built-in default` };
}

export async function effectiveConfig(db: Db, env: Record<string, string | undefined>): Promise<KeyState[]> {
  const rows = await readConfigRows(db);
  return CONFIG_KEYS.map((key) => (rows.has(key) ? fromRow(key, rows.get(key)) : fromSeedOrDefault(key, env)));
}

/** Keys that have no stored row yet (the API writes them at its first start). */
export async function missingRows(db: Db): Promise<ConfigKey[]> {
  const rows = await readConfigRows(db);
  return CONFIG_KEYS.filter((k) => !rows.has(k));
}
