/**
 * `svc admin create --email <e>`: the first admin without code. The email is
 * normalised as every route normalises it; the role lists come from the
 * stored config (or, before the API's first start, from the env seed or the
 * default that start would store).
 */
import { emailField } from '../../src/services/contact/normalize.js';
import type { SystemConfigValues } from '../../src/config/keys.js';
import { safeParse } from '../../src/safe-parse.js';
import type { CommandContext } from '../commands.js';
import { grantAdmin } from '../admin-grant.js';
import { effectiveConfig } from '../config-state.js';
import { databaseTarget, openTarget } from '../database.js';
import { cliDeps } from '../deps.js';
import { CliError, EXIT, usageError, type ExitCode } from '../exit-codes.js';
import { requireMigrated } from '../migration-status.js';

export async function run({ values, env, out, cwd, streams }: CommandContext): Promise<ExitCode> {
  if (typeof values['email'] !== 'string') throw usageError('--email <email> is required');
  const parsed = safeParse(emailField, values['email']);
  if (!parsed.success)
    throw usageError('--email is not a valid email address (local@domain.tld, at most 254 characters)');
  const email = parsed.data;

  const database = await openTarget(databaseTarget(env, cwd), { create: false });
  try {
    await requireMigrated(database.client);
    const states = (await effectiveConfig(database.db, env)).filter(
      (s) => s.key === 'available_roles' || s.key === 'default_roles',
    );
    const bad = states.find((s) => s.problem);
    if (bad) throw new CliError(EXIT.environment, 'invalid_config', `${bad.key}: ${bad.problem}`);
    const roles = Object.fromEntries(states.map((s) => [s.key, s.value])) as Pick<
      SystemConfigValues,
      'available_roles' | 'default_roles'
    >;
    for (const s of states.filter((x) => x.source !== 'row'))
      out.note(
        `note: ${s.key} has no row yet; using the ${s.source === 'env' ? 'env seed' : 'built-in default'} the API's first start would store.`,
      );

    const result = await grantAdmin(cliDeps(database, env, streams), email, roles);
    const verb = { created: 'created', promoted: 'promoted', unchanged: 'already an admin' }[result.outcome];
    out.line(
      `${out.paint(result.outcome === 'unchanged' ? 'dim' : 'ok', verb)} ${result.email} (id ${result.userId}; roles ${result.roles.join(', ')})`,
    );
    if (result.outcome !== 'unchanged')
      out.line('They sign in with an email code or magic link (login_methods permitting) and then add a passkey.');
    out.result({ ok: true, ...result });
    return EXIT.ok;
  } finally {
    database.client.close();
  }
}
