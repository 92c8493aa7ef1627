/**
 * The checks of `svc doctor`, each producing findings of one line. They call
 * the code a boot runs (`parseEnv`, `seedIssues`, `loadProductionKeys`, the
 * migration bookkeeping, the config bootstrap order) and write nothing.
 */
import { ConfigError } from '../src/config/config-error.js';
import { parseEnv, type ParsedEnv } from '../src/config/env.js';
import { crossKeyIssues, type SystemConfigValues } from '../src/config/keys.js';
import { loadProductionKeys } from '../src/crypto/keys.js';
import { seedIssues } from '../src/services/config/system-config.js';
import { effectiveConfig } from './config-state.js';
import { databaseTarget, firstLine, openTarget } from './database.js';
import { CliError } from './exit-codes.js';
import { migrationStatus } from './migration-status.js';

export interface Finding {
  level: 'ok' | 'warn' | 'error';
  /** The variable, config key or area the finding is about. */
  check: string;
  message: string;
}

type Env = Record<string, string | undefined>;
const finding = (level: Finding['level'], check: string, message: string): Finding => ({ level, check, message });
/** A ConfigError's problem without the `KEY: ` prefix (the finding names the key already). */
const problemOf = (i: ConfigError) =>
  i.message.startsWith(`${i.key}: `) ? i.message.slice(i.key.length + 2) : i.message;
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** parseEnv and the config seeds, as `createAuthApi` runs them first. */
export function checkEnvironment(env: Env): { findings: Finding[]; parsed: ParsedEnv | null } {
  const findings: Finding[] = [];
  let parsed: ParsedEnv | null = null;
  try {
    parsed = parseEnv(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const i of err.issues) findings.push(finding('error', i.key, problemOf(i)));
  }
  for (const i of seedIssues(env)) findings.push(finding('error', i.key, problemOf(i)));
  if (!parsed) return { findings, parsed };
  for (const w of parsed.warnings) findings.push(finding('warn', 'env', w));
  findings.push(finding('ok', 'ISSUER', `${parsed.issuer}${parsed.issuer.startsWith('https://') ? ' (https)' : ''}`));
  const fallbacks = ['REFRESH_TOKEN_LOOKUP_SECRET', 'TOTP_SECRET_ENCRYPTION_KEY', 'DECOY_SUBJECT_SECRET'].filter(
    (n) => !env[n],
  );
  for (const name of fallbacks)
    findings.push(
      finding(
        'warn',
        name,
        'is unset: it falls back to API_SERVICE_TOKEN (one leaked secret then serves both purposes)',
      ),
    );
  if (env['API_SERVICE_TOKEN'])
    findings.push(finding('ok', 'secrets', 'every secret that is set has at least 32 characters'));
  for (const origin of parsed.appOrigins) {
    const u = new URL(origin);
    if (parsed.production && u.protocol !== 'https:') {
      findings.push(
        LOCAL_HOSTS.has(u.hostname)
          ? finding('warn', 'APP_ORIGINS', `${origin} is a local origin in production`)
          : finding('error', 'APP_ORIGINS', `${origin} must use https in production`),
      );
    }
  }
  return { findings, parsed };
}

/** The production signing keys through the boot's own loader. */
export async function checkKeys(parsed: ParsedEnv): Promise<Finding[]> {
  if (!parsed.productionKeys)
    return [finding('ok', 'SVC_JWKS_ACTIVE_KID', 'development: the API generates and stores the dev-main key')];
  try {
    const store = await loadProductionKeys(parsed.productionKeys);
    return [
      finding(
        'ok',
        'SVC_JWKS_ACTIVE_KID',
        `${store.activeKid} matches its published public key (published: ${[...store.publicKeys.keys()].join(', ')})`,
      ),
    ];
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => finding('error', i.key, problemOf(i)));
    throw err;
  }
}

/** WebAuthn origins must be https outside localhost, and each host must sit under `rpid`. */
export function checkOrigins(cfg: Pick<SystemConfigValues, 'origins' | 'rpid'>, production: boolean): Finding[] {
  const findings: Finding[] = [];
  for (const origin of cfg.origins.filter((o) => /^https?:/.test(o))) {
    const u = new URL(origin);
    if (production && u.protocol !== 'https:' && !LOCAL_HOSTS.has(u.hostname))
      findings.push(
        finding(
          'error',
          'origins',
          `${origin} must use https (browsers refuse passkeys on http origins other than localhost)`,
        ),
      );
    if (u.hostname !== cfg.rpid && !u.hostname.endsWith(`.${cfg.rpid}`))
      findings.push(
        finding(
          'error',
          'rpid',
          `${cfg.rpid} is not ${u.hostname} or a parent domain of it: passkeys from ${origin} would fail`,
        ),
      );
  }
  if (findings.length === 0)
    findings.push(finding('ok', 'origins', `${cfg.origins.length} origin(s) under rpid ${cfg.rpid}`));
  return findings;
}

/** Reachable, migrated, and a config the bootstrap would accept. */
export async function checkDatabase(env: Env, cwd: string, production: boolean): Promise<Finding[]> {
  let database;
  let display = env['DATABASE_URL'] ?? '';
  try {
    const target = databaseTarget(env, cwd);
    display = target.display;
    database = await openTarget(target, { create: false });
  } catch (err) {
    if (err instanceof CliError) return [finding('error', 'DATABASE_URL', err.message)];
    return [finding('error', 'DATABASE_URL', `cannot reach the database at ${display} (${firstLine(err)})`)];
  }
  const findings: Finding[] = [finding('ok', 'DATABASE_URL', `${display} is reachable`)];
  try {
    const status = await migrationStatus(database.client);
    if (status.pending.length)
      findings.push(
        finding(
          'error',
          'migrations',
          `${status.pending.length} pending (${status.pending.map((m) => m.tag).join(', ')}): run svc migrate`,
        ),
      );
    else findings.push(finding('ok', 'migrations', `all ${status.applied.length} applied`));
    if (status.ahead)
      findings.push(finding('warn', 'migrations', 'the database records a migration newer than this svc bundles'));
    if (status.applied.length === 0) return findings;
    const states = await effectiveConfig(database.db, env);
    const bad = states.filter((s) => s.problem);
    for (const s of bad) findings.push(finding('error', s.key, s.problem!));
    if (bad.length) return findings;
    const cfg = Object.fromEntries(states.map((s) => [s.key, s.value])) as SystemConfigValues;
    for (const issue of crossKeyIssues(cfg)) findings.push(finding('error', issue.key, issue.message));
    const stored = states.filter((s) => s.source === 'row').length;
    findings.push(
      finding(
        'ok',
        'system config',
        `${states.length} keys valid (${stored} stored, ${states.length - stored} from env seeds or defaults at the next start)`,
      ),
    );
    findings.push(...checkOrigins(cfg, production));
    return findings;
  } catch (err) {
    return [...findings, finding('error', 'DATABASE_URL', `reading the database failed (${firstLine(err)})`)];
  } finally {
    database.client.close();
  }
}
