/**
 * `svc doctor`: this environment checked as a production boot would check
 * it (whatever NODE_ENV says, unless --development), one finding per line;
 * exit 1 when any finding is an error. `--development` checks the environment
 * `npm start` runs with (its defaults < `.env` < this environment).
 */
import { join } from 'node:path';
import type { CommandContext } from '../commands.js';
import { displayUrl } from '../database.js';
import { readDotEnv, resolveDevEnv } from '../dev-env.js';
import { checkDatabase, checkEnvironment, checkKeys, type Finding } from '../doctor-checks.js';
import { EXIT, type ExitCode } from '../exit-codes.js';

export async function run({ values, env, out, cwd }: CommandContext): Promise<ExitCode> {
  const production = values['development'] !== true;
  const findings: Finding[] = [];
  const nodeEnv = env['NODE_ENV']?.trim();
  if (production && nodeEnv !== 'production') {
    findings.push({
      level: 'warn',
      check: 'NODE_ENV',
      message: `is ${nodeEnv ? `"${nodeEnv}"` : 'unset'}: the API would boot in development mode; checked with production rules`,
    });
  }
  // Development: what `npm start` boots with, so its own database checks clean without a hand-written env.
  const checked = production ? { ...env, NODE_ENV: 'production' } : resolveDevEnv(env, readDotEnv(join(cwd, '.env')));
  if (!production) {
    findings.push({
      level: 'ok',
      check: 'environment',
      message: `development: npm start's defaults < .env < this environment (ISSUER ${checked['ISSUER']}, DATABASE_URL ${displayUrl(checked['DATABASE_URL'] ?? '')})`,
    });
  }
  const { findings: envFindings, parsed } = checkEnvironment(checked);
  findings.push(...envFindings);
  if (parsed) findings.push(...(await checkKeys(parsed)));
  findings.push(...(await checkDatabase(checked, cwd, production)));

  const tone = { ok: 'ok', warn: 'warn', error: 'error' } as const;
  for (const f of findings) out.line(`${out.paint(tone[f.level], f.level.padEnd(5))} ${f.check}: ${f.message}`);
  const errors = findings.filter((f) => f.level === 'error').length;
  const warnings = findings.filter((f) => f.level === 'warn').length;
  out.line(
    errors
      ? out.paint('error', `${errors} error(s), ${warnings} warning(s): fix them before deploying`)
      : out.paint('ok', `no errors, ${warnings} warning(s)`),
  );
  out.result({ ok: errors === 0, mode: production ? 'production' : 'development', errors, warnings, findings });
  return errors ? EXIT.failure : EXIT.ok;
}
