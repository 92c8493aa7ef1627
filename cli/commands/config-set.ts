/**
 * `svc config set <key> <value>`: one key through `applyConfigPatch`, the
 * service of `PATCH /system-config/admin`, so the rules, the refusals, their
 * codes and the events are the route's own.
 */
import { CONFIG_CACHE_TTL_MS } from '../../src/services/config/system-config.js';
import { applyConfigPatch } from '../../src/services/config/patch.js';
import { ApiError } from '../../src/errors.js';
import type { CommandContext } from '../commands.js';
import { missingRows } from '../config-state.js';
import { databaseTarget, openTarget } from '../database.js';
import { CLI_ACTOR, cliDeps } from '../deps.js';
import { CliError, EXIT, type ExitCode } from '../exit-codes.js';
import { requireMigrated } from '../migration-status.js';

/**
 * JSON when it parses (`200`, `false`, `'["user"]'`, `'{…}'`); otherwise the text itself as a string (`Acme`, `15m`).
 */
export function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

interface Issue {
  path?: (string | number)[];
  message?: string;
}

/** The route's error body as one line: code, message, and each issue as `path: message`. */
function refusal(err: ApiError): CliError {
  const details = err.extras?.['details'] as { issues?: Issue[] } | undefined;
  const issues = (details?.issues ?? []).map(
    (i) => `${(i.path ?? []).join('.') || '(body)'}: ${i.message ?? 'invalid'}`,
  );
  const message = `${err.code}: ${err.message}${issues.length ? ` (${issues.join('; ')})` : ''}`;
  return new CliError(EXIT.failure, err.code, message, { ...err.extras });
}

export async function run({ positionals, env, out, cwd, streams }: CommandContext): Promise<ExitCode> {
  const [key, text] = positionals as [string, string];
  const database = await openTarget(databaseTarget(env, cwd), { create: false });
  try {
    await requireMigrated(database.client);
    const missing = await missingRows(database.db);
    if (missing.length) {
      throw new CliError(
        EXIT.environment,
        'not_bootstrapped',
        `system config has no row for ${missing.join(', ')}: start the API once (its boot writes them from env seeds or defaults), then retry`,
      );
    }
    const deps = cliDeps(database, env, streams);
    let updatedKeys: string[];
    try {
      ({ updatedKeys } = await applyConfigPatch(deps, { [key]: parseValue(text) }, CLI_ACTOR));
    } catch (err) {
      if (err instanceof ApiError) throw refusal(err);
      throw err;
    }
    const ttlSeconds = CONFIG_CACHE_TTL_MS / 1000;
    out.line(`${out.paint('ok', 'updated')} ${updatedKeys.join(', ')}`);
    out.line(
      `Running API instances cache the config for ${ttlSeconds} s: each one serves the new value within ${ttlSeconds} s, without a restart.`,
    );
    out.result({ ok: true, updatedKeys, cacheTtlSeconds: ttlSeconds });
    return EXIT.ok;
  } finally {
    database.client.close();
  }
}
