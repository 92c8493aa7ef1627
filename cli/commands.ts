/**
 * The command table of `svc`: words, usage, options and a lazy loader, so
 * `svc --help` loads no database driver and importing this file does no I/O.
 */
import type { ParseArgsConfig } from 'node:util';
import type { ExitCode } from './exit-codes.js';
import type { Output, Streams } from './output.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface CommandContext {
  /** Option values after validation by `util.parseArgs` (strict). */
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
  /** process.env, overlaid with `--env` when given. */
  env: Record<string, string | undefined>;
  out: Output;
  streams: Streams;
  cwd: string;
}

export interface Command {
  words: readonly string[];
  usage: string;
  summary: string;
  options: Options;
  /** Positional arguments after the command words. */
  positionals: { min: number; max: number };
  load: () => Promise<{ run: (ctx: CommandContext) => Promise<ExitCode> }>;
}

export const GLOBAL_OPTIONS: Options = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  'no-color': { type: 'boolean' },
  // Not `--env-file`: Node 20 reads any `--env-file` in argv, even after the script name, and exits 9.
  env: { type: 'string' },
};

export const COMMANDS: readonly Command[] = [
  {
    words: ['keys', 'generate'],
    usage: 'svc keys generate [--kid <kid>] [--out <file> [--force]]',
    summary: 'a new RS256 key pair as the SVC_JWKS_* variables (stdout, or a 0600 file)',
    options: { kid: { type: 'string' }, out: { type: 'string' }, force: { type: 'boolean' } },
    positionals: { min: 0, max: 0 },
    load: () => import('./commands/keys-generate.js'),
  },
  {
    words: ['keys', 'rotate'],
    usage: 'svc keys rotate',
    summary: 'the steps to publish a new kid before switching to it',
    options: {},
    positionals: { min: 0, max: 0 },
    load: () => import('./commands/keys-rotate.js'),
  },
  {
    words: ['migrate'],
    usage: 'svc migrate [--dry-run]',
    summary: 'apply the bundled migrations to DATABASE_URL and report what ran',
    options: { 'dry-run': { type: 'boolean' } },
    positionals: { min: 0, max: 0 },
    load: () => import('./commands/migrate.js'),
  },
  {
    words: ['admin', 'create'],
    usage: 'svc admin create --email <email>',
    summary: 'create or promote a verified user with the admin role (idempotent)',
    options: { email: { type: 'string' } },
    positionals: { min: 0, max: 0 },
    load: () => import('./commands/admin-create.js'),
  },
  {
    words: ['config', 'get'],
    usage: 'svc config get [<key>]',
    summary: 'the stored system config (one key or all)',
    options: {},
    positionals: { min: 0, max: 1 },
    load: () => import('./commands/config-get.js'),
  },
  {
    words: ['config', 'set'],
    usage: 'svc config set <key> <value>',
    summary: 'change one system-config key through the admin PATCH rules',
    options: {},
    positionals: { min: 2, max: 2 },
    load: () => import('./commands/config-set.js'),
  },
  {
    words: ['doctor'],
    usage: 'svc doctor [--development]',
    summary: 'check this environment the way a production boot would',
    options: { development: { type: 'boolean' } },
    positionals: { min: 0, max: 0 },
    load: () => import('./commands/doctor.js'),
  },
  {
    words: ['oauth-clients'],
    usage:
      'svc oauth-clients list [--registration admin|dynamic] | create --name <n> --type confidential|public --redirect-uri <uri>… [--scope <s>…] [--client-uri <url>] [--skip-consent] | delete <clientId> | rotate-secret <clientId>',
    summary: "the OAuth provider's clients: list, create (the secret shown once), delete, rotate the secret",
    options: {
      registration: { type: 'string' },
      name: { type: 'string' },
      type: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      scope: { type: 'string', multiple: true },
      'client-uri': { type: 'string' },
      'skip-consent': { type: 'boolean' },
    },
    positionals: { min: 1, max: 2 },
    load: () => import('./commands/oauth-clients.js'),
  },
];

/** The command whose words start `argv`, and the arguments after them. */
export function findCommand(argv: readonly string[]): { command: Command; rest: string[] } | null {
  for (const command of COMMANDS) {
    if (command.words.every((w, i) => argv[i] === w)) return { command, rest: argv.slice(command.words.length) };
  }
  return null;
}
