/** `svc --help` and `svc <command> --help` texts. */
import { COMMANDS, type Command } from './commands.js';

const OPTION_HELP: Record<string, string> = {
  kid: 'key id, ^[A-Za-z0-9_]{1,64}$ (default: k<yyyymmdd>_<random>)',
  out: 'write the variables to this file (mode 0600) instead of stdout',
  force: 'with --out: replace an existing file',
  'dry-run': 'report the pending migrations without applying them',
  email: 'the account to create or promote',
  development:
    "check npm start's environment with development rules (its defaults < .env < env; default: production rules, whatever NODE_ENV says)",
};

const GLOBAL_HELP = [
  '  --json             one JSON document on stdout (errors too), no colour',
  '  --env <file>       read variables from a dotenv file (they win over the shell)',
  '  --no-color         no ANSI colour (also: NO_COLOR=1; colour is only used on a TTY)',
  '  -h, --help         this help',
];

const EXIT_HELP = [
  'Exit codes: 0 ok · 1 refused/failed or doctor found an error · 2 usage error · 3 environment unusable (DATABASE_URL, database unreachable or not migrated)',
];

export function generalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.words.join(' ').length));
  return [
    'svc — the svc auth command line',
    '',
    'Usage: svc <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.words.join(' ').padEnd(width)}  ${c.summary}`),
    '',
    'Global options:',
    ...GLOBAL_HELP,
    '  -v, --version      the package version',
    '',
    ...EXIT_HELP,
    'Database commands read DATABASE_URL (file:, http(s): sqld, libsql: Turso) and DATABASE_AUTH_TOKEN.',
    'Docs: docs/cli.md',
    '',
  ].join('\n');
}

export function commandHelp(command: Command): string {
  const options = Object.keys(command.options).map((name) => {
    const arg = command.options[name]!.type === 'string' ? ` <${name === 'out' ? 'file' : name}>` : '';
    return `  --${`${name}${arg}`.padEnd(17)}${OPTION_HELP[name] ?? ''}`;
  });
  return [
    `Usage: ${command.usage}`,
    '',
    command.summary,
    '',
    ...(options.length ? ['Options:', ...options, ''] : []),
    'Global options:',
    ...GLOBAL_HELP,
    '',
    ...EXIT_HELP,
    '',
  ].join('\n');
}
