/**
 * `svc config get [key]`: what is stored now, read from the table (not a
 * cache), each key validated as the API validates it.
 */
import { CONFIG_KEYS, type ConfigKey } from '../../src/config/keys.js';
import type { CommandContext } from '../commands.js';
import { effectiveConfig } from '../config-state.js';
import { databaseTarget, openTarget } from '../database.js';
import { CliError, EXIT, usageError, type ExitCode } from '../exit-codes.js';
import { requireMigrated } from '../migration-status.js';

export async function run({ positionals, env, out, cwd }: CommandContext): Promise<ExitCode> {
  const key = positionals[0];
  if (key !== undefined && !CONFIG_KEYS.includes(key as ConfigKey))
    throw usageError(`unknown config key "${key}" (keys: ${CONFIG_KEYS.join(', ')})`);
  const database = await openTarget(databaseTarget(env, cwd), { create: false });
  try {
    await requireMigrated(database.client);
    // Only stored rows are shown (no env given): a seed is the API's business until its boot writes it.
    const all = (await effectiveConfig(database.db, {})).filter((s) => key === undefined || s.key === key);
    const states = all.filter((s) => s.source === 'row');
    const missing = all.filter((s) => s.source !== 'row').map((s) => s.key);
    if (key !== undefined && missing.length) {
      throw new CliError(
        EXIT.failure,
        'not_bootstrapped',
        `${key} has no row yet: the API writes it from its env seed or default at its next start`,
      );
    }
    const invalid = states.filter((s) => s.problem);
    for (const s of states) {
      if (s.problem) out.line(`${s.key} ${out.paint('error', `(invalid: ${s.problem})`)}`);
      else if (key !== undefined) out.line(JSON.stringify(s.value));
      else out.line(`${s.key} ${JSON.stringify(s.value)}`);
    }
    if (missing.length === CONFIG_KEYS.length)
      out.line(
        out.paint(
          'dim',
          'no system config rows yet: the API writes them from its env seeds or defaults at its first start',
        ),
      );
    else
      for (const k of missing)
        out.line(
          `${k} ${out.paint('dim', '(no row yet: the API writes it from its env seed or default at its next start)')}`,
        );
    const values = Object.fromEntries(states.filter((s) => !s.problem).map((s) => [s.key, s.value]));
    if (invalid.length) {
      throw new CliError(
        EXIT.failure,
        'invalid_config',
        `stored config is invalid: ${invalid.map((s) => `${s.key}: ${s.problem}`).join('; ')}`,
        { values, missing },
      );
    }
    out.result({ ok: true, values, missing });
    return EXIT.ok;
  } finally {
    database.client.close();
  }
}
