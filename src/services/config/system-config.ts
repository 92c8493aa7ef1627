/**
 * Runtime system config (contract §6): bootstrap in the
 * order existing row > env seed > built-in default > startup failure, then a
 * process-local cache (60 s TTL) that validates every value it serves.
 */
import { eq, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import { ConfigError } from '../../config/config-error.js';
import type { EnvRecord } from '../../config/env.js';
import {
  BUILT_IN_DEFAULTS,
  CONFIG_KEYS,
  configSchemas,
  crossKeyIssues,
  ENV_SEEDS,
  type ConfigKey,
  type SystemConfigValues,
} from '../../config/keys.js';
import type { Db } from '../../db/client.js';
import { systemConfig } from '../../db/schema.js';
import { safeParse } from '../../safe-parse.js';

export const CONFIG_CACHE_TTL_MS = 60_000;

export interface SystemConfigService {
  /** The whole validated config, from the cache when it is fresh. */
  get(): Promise<SystemConfigValues>;
  /** Drops the local cache; the next `get()` reads the table. */
  invalidate(): void;
}

function validateKey<K extends ConfigKey>(key: K, value: unknown): SystemConfigValues[K] {
  const parsed = safeParse(configSchemas[key], value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    throw new ConfigError(key, `invalid value${where}: ${issue?.message ?? 'failed validation'}`);
  }
  return parsed.data as SystemConfigValues[K];
}

/** Parses one env seed, failing startup on a present-but-invalid value (contract §6.2). */
export function parseSeed<K extends ConfigKey>(key: K, raw: string): SystemConfigValues[K] {
  const [envName, parse] = ENV_SEEDS[key];
  let value: unknown;
  try {
    value = parse(raw);
  } catch (err) {
    throw new ConfigError(envName, `${(err as Error).message} (seed of ${key})`);
  }
  try {
    return validateKey(key, value);
  } catch (err) {
    throw new ConfigError(envName, `${(err as Error).message.replace(`${key}: `, '')} (seed of ${key})`);
  }
}

/** Validates a full config read from rows, including the cross-key rules. */
export function validateConfig(rows: Map<string, unknown>): SystemConfigValues {
  const out: Partial<Record<ConfigKey, unknown>> = {};
  for (const key of CONFIG_KEYS) {
    if (!rows.has(key)) throw new ConfigError(key, 'has no row, no env seed and no built-in default');
    out[key] = validateKey(key, rows.get(key));
  }
  const cfg = out as SystemConfigValues;
  const issue = crossKeyIssues(cfg)[0];
  if (issue) throw new ConfigError(issue.key, issue.message);
  return cfg;
}

async function readRows(db: Db): Promise<Map<string, unknown>> {
  const rows = await db.select({ key: systemConfig.key, value: systemConfig.value }).from(systemConfig);
  return new Map(rows.map((r) => [r.key, r.value]));
}

/**
 * `rpid` and `origins` outside production, derived from ISSUER, so a bare
 * `npm run api` starts. In production they stay required: a guessed RP ID
 * would silently break every passkey of the real app.
 */
function developmentDefault(key: ConfigKey, env: EnvRecord): unknown {
  if (env['NODE_ENV']?.trim() === 'production' || (key !== 'rpid' && key !== 'origins')) return undefined;
  let issuer: URL;
  try {
    issuer = new URL(env['ISSUER']?.trim() ?? '');
  } catch {
    return undefined;
  }
  return key === 'rpid' ? issuer.hostname : [issuer.origin];
}

/** The value a missing row gets: env seed, then built-in default; undefined when neither exists. */
function seedOrDefault(key: ConfigKey, env: EnvRecord): unknown {
  const [envName] = ENV_SEEDS[key];
  const raw = env[envName];
  if (raw !== undefined && raw.trim() !== '') return parseSeed(key, raw);
  return BUILT_IN_DEFAULTS[key] ?? developmentDefault(key, env);
}

/** Runs `fn` per key and throws one ConfigError carrying every key's problem (one line each). */
function forEachKey(keys: readonly ConfigKey[], fn: (key: ConfigKey) => void): void {
  const issues: ConfigError[] = [];
  for (const key of keys) {
    try {
      fn(key);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      issues.push(err);
    }
  }
  if (issues.length) throw ConfigError.combine(issues);
}

/**
 * Every present-but-invalid env seed, checked before the database is opened
 * so that one start reports them together with the env's own problems.
 */
export function seedIssues(env: EnvRecord): ConfigError[] {
  try {
    forEachKey(CONFIG_KEYS, (key) => {
      const raw = env[ENV_SEEDS[key][0]];
      if (raw !== undefined && raw.trim() !== '') parseSeed(key, raw);
    });
    return [];
  } catch (err) {
    return [...(err as ConfigError).issues];
  }
}

/**
 * Creates missing rows from env seeds or defaults, never overwriting a row.
 * Concurrent boots are safe: inserts are `ON CONFLICT DO NOTHING` and the
 * table is re-read afterwards. Every missing or invalid key is reported at once.
 */
export async function bootstrapSystemConfig(db: Db, env: EnvRecord, clock: Clock): Promise<SystemConfigValues> {
  const existing = await readRows(db);
  const now = new Date(clock.now());
  const values: { key: ConfigKey; value: unknown }[] = [];
  forEachKey(
    CONFIG_KEYS.filter((key) => !existing.has(key)),
    (key) => {
      const value = seedOrDefault(key, env);
      if (value === undefined)
        throw new ConfigError(
          key,
          `is missing: set ${ENV_SEEDS[key][0]} (no row, no env seed and no built-in default)`,
        );
      values.push({ key, value });
    },
  );
  for (const { key, value } of values) {
    await db
      .insert(systemConfig)
      .values({ key, value, updatedBy: null, createdAt: now, updatedAt: now })
      .onConflictDoNothing();
  }
  return validateConfig(await readRows(db));
}

export function createSystemConfigService(db: Db, clock: Clock, ttlMs = CONFIG_CACHE_TTL_MS): SystemConfigService {
  let cached: { value: SystemConfigValues; expiresAt: number } | null = null;
  let loading: Promise<SystemConfigValues> | null = null;
  // Bumped by invalidate(): a read that started before it must neither fill
  // the cache nor be shared with callers that come after it.
  let generation = 0;
  return {
    async get() {
      const now = clock.now();
      if (cached && cached.expiresAt > now) return cached.value;
      if (!loading) {
        const gen = generation;
        const load = readRows(db)
          .then((rows) => {
            const value = validateConfig(rows);
            if (gen === generation) cached = { value, expiresAt: clock.now() + ttlMs };
            return value;
          })
          .finally(() => {
            if (loading === load) loading = null;
          });
        loading = load;
      }
      return loading;
    },
    invalidate() {
      cached = null;
      loading = null;
      generation++;
    },
  };
}

/** Upserts changed keys in one batch (used by the admin PATCH route). */
export async function writeConfigKeys(
  db: Db,
  changes: Partial<SystemConfigValues>,
  updatedBy: string | null,
  clock: Clock,
): Promise<void> {
  const now = new Date(clock.now());
  const stmts = Object.entries(changes).map(([key, value]) =>
    db
      .insert(systemConfig)
      .values({ key, value, updatedBy, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: systemConfig.key, set: { value: sql`excluded.value`, updatedBy, updatedAt: now } }),
  );
  if (stmts.length === 0) return;
  await db.batch(stmts as [(typeof stmts)[number], ...typeof stmts]);
}

export async function readConfigRow(db: Db, key: ConfigKey) {
  const [row] = await db.select().from(systemConfig).where(eq(systemConfig.key, key));
  return row ?? null;
}
