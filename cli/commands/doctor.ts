/**
 * `svc doctor`: this environment checked as a production boot would check
 * it (whatever NODE_ENV says, unless --development), one finding per line;
 * exit 1 when any finding is an error.
 */
import type { CommandContext } from '../commands.js';
import { checkDatabase, checkEnvironment, checkKeys, type Finding } from '../doctor-checks.js';
import { EXIT, type ExitCode } from '../exit-codes.js';

export async function run({ values, env, out, cwd }: CommandContext): Promise<ExitCode> {
  const production = values['development'] !== true;
  const findings: Finding[] = [];
  const nodeEnv = env['NODE_ENV']?.trim();
  if (production && nodeEnv !== 'production') {
    findings.push({ level: 'warn', check: 'NODE_ENV', message: `is ${nodeEnv ? `"${nodeEnv}"` : 'unset'}: the API would boot in development mode; checked with production rules` });
  }
  const checked = production ? { ...env, NODE_ENV: 'production' } : env;
  const { findings: envFindings, parsed } = checkEnvironment(checked);
  findings.push(...envFindings);
  if (parsed) findings.push(...(await checkKeys(parsed)));
  findings.push(...(await checkDatabase(checked, cwd, production)));

  const tone = { ok: 'ok', warn: 'warn', error: 'error' } as const;
  for (const f of findings) out.line(`${out.paint(tone[f.level], f.level.padEnd(5))} ${f.check}: ${f.message}`);
  const errors = findings.filter((f) => f.level === 'error').length;
  const warnings = findings.filter((f) => f.level === 'warn').length;
  out.line(errors ? out.paint('error', `${errors} error(s), ${warnings} warning(s): fix them before deploying`) : out.paint('ok', `no errors, ${warnings} warning(s)`));
  out.result({ ok: errors === 0, mode: production ? 'production' : 'development', errors, warnings, findings });
  return errors ? EXIT.failure : EXIT.ok;
}
