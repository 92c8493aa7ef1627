/**
 * `svc oauth-clients list|create|delete|rotate-secret`: the provider's
 * clients from the command line (docs/oauth-provider.md, "Clients"), through
 * the services of `/admin/oauth-clients`, so the rules (redirect URIs, scopes),
 * the refusals and the events are the admin API's own. A confidential client's
 * secret is printed once, on create and rotate-secret.
 */
import { ApiError } from '../../src/errors.js';
import {
  createClient,
  deleteClient,
  listClients,
  rotateClientSecret,
} from '../../src/services/oauth-server/clients/admin.js';
import type { ClientJson } from '../../src/services/oauth-server/clients/serialize.js';
import type { CommandContext } from '../commands.js';
import { databaseTarget, openTarget } from '../database.js';
import { CLI_ACTOR, cliDeps, type CliDeps } from '../deps.js';
import { CliError, EXIT, usageError, type ExitCode } from '../exit-codes.js';
import { requireMigrated } from '../migration-status.js';
import type { Output } from '../output.js';

interface Issue {
  path?: (string | number)[];
  message?: string;
}

/** The service's refusal as one line: code, message, and each issue as `path: message`. */
function refusal(err: ApiError): CliError {
  const details = err.extras?.['details'] as { issues?: Issue[] } | undefined;
  const issues = (details?.issues ?? []).map(
    (i) => `${(i.path ?? []).join('.') || '(body)'}: ${i.message ?? 'invalid'}`,
  );
  return new CliError(
    EXIT.failure,
    err.code,
    `${err.code}: ${err.message}${issues.length ? ` (${issues.join('; ')})` : ''}`,
  );
}

const describe = (c: ClientJson) =>
  `${c.id}  ${c.name}  ${c.type}${c.registration === 'dynamic' ? '  dynamic' : ''}  ${c.redirectUris.join(' ')}`;

/** `--scope a --scope b` or `--scope "a b"`: both read as a list. */
const list = (v: unknown): string[] =>
  (Array.isArray(v) ? v : typeof v === 'string' ? [v] : []).flatMap((s: string) => s.split(/[\s,]+/)).filter(Boolean);

function printSecret(out: Output, secret: string | undefined) {
  if (!secret) return;
  out.line(`client secret: ${secret}`);
  out.note('Shown this once: store it in the client now (only its hash is kept).');
}

async function create(deps: CliDeps, values: Record<string, unknown>, out: Output) {
  const name = values['name'];
  const type = values['type'];
  if (typeof name !== 'string' || !name.trim()) throw usageError('--name <name> is required');
  if (type !== 'confidential' && type !== 'public') throw usageError('--type confidential|public is required');
  const redirectUris = list(values['redirect-uri']);
  if (!redirectUris.length) throw usageError('--redirect-uri <uri> is required (repeat it for several)');
  const scopes = list(values['scope']);
  const result = await createClient(
    deps,
    {
      name: name.trim().slice(0, 100),
      type,
      redirectUris,
      scopes: scopes.length ? scopes : ['openid'],
      clientUri: typeof values['client-uri'] === 'string' ? values['client-uri'] : undefined,
      skipConsent: values['skip-consent'] === true ? true : undefined,
    },
    CLI_ACTOR,
  );
  out.line(`${out.paint('ok', 'created')} ${describe(result.client)}`);
  printSecret(out, result.clientSecret);
  out.result({ ok: true, ...result });
}

export async function run({ positionals, values, env, out, cwd, streams }: CommandContext): Promise<ExitCode> {
  const [action, clientId] = positionals as [string, string | undefined];
  const needsId = action === 'delete' || action === 'rotate-secret';
  if (!['list', 'create', 'delete', 'rotate-secret'].includes(action))
    throw usageError(`unknown action ${JSON.stringify(action)}: list, create, delete or rotate-secret`);
  if (needsId && !clientId) throw usageError(`svc oauth-clients ${action} <clientId>`);
  const database = await openTarget(databaseTarget(env, cwd), { create: false });
  try {
    await requireMigrated(database.client);
    const deps = cliDeps(database, env, streams);
    try {
      if (action === 'list') {
        const registration = values['registration'];
        if (registration !== undefined && registration !== 'admin' && registration !== 'dynamic')
          throw usageError('--registration admin|dynamic');
        const { clients, total } = await listClients(deps, { limit: 100, offset: 0, registration });
        for (const c of clients) out.line(describe(c));
        if (!clients.length) out.line(out.paint('dim', 'no OAuth clients'));
        else if (total > clients.length) out.note(`(the newest ${clients.length} of ${total})`);
        out.result({ ok: true, clients, total });
      } else if (action === 'create') {
        await create(deps, values, out);
      } else if (action === 'delete') {
        await deleteClient(deps, clientId!, CLI_ACTOR);
        out.line(`${out.paint('ok', 'deleted')} ${clientId} (its consents, grants and tokens with it)`);
        out.result({ ok: true, clientId });
      } else {
        const result = await rotateClientSecret(deps, clientId!, CLI_ACTOR);
        out.line(`${out.paint('ok', 'rotated')} ${clientId}: the old secret no longer works`);
        printSecret(out, result.clientSecret);
        out.result({ ok: true, ...result });
      }
    } catch (err) {
      if (err instanceof ApiError) throw refusal(err);
      throw err;
    }
    return EXIT.ok;
  } finally {
    database.client.close();
  }
}
