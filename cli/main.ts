/**
 * `svc`: the operator's command line (docs/cli.md). Node-only; the bin
 * (`bin/svc.mjs`) calls `main`. Argument parsing is Node's own
 * `util.parseArgs` (strict mode): a maintained parser that ships with the
 * runtime we already require, so the CLI adds no dependency to the package.
 *
 * @example
 * import { main } from './cli/main.js';
 * process.exitCode = await main(['doctor', '--json'], { streams: process, env: process.env, cwd: process.cwd() });
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs, parseEnv as parseDotenv } from 'node:util';
import { ConfigError } from '../src/config/config-error.js';
import { API_VERSION } from '../src/version.js';
import { COMMANDS, findCommand, GLOBAL_OPTIONS, type Command } from './commands.js';
import { CliError, EXIT, usageError, type ExitCode } from './exit-codes.js';
import { createOutput, printFailure, type Streams } from './output.js';
import { commandHelp, generalHelp } from './help.js';

export interface MainIo {
  streams: Streams;
  env: Record<string, string | undefined>;
  cwd: string;
}

const ALL_OPTIONS = Object.assign({}, GLOBAL_OPTIONS, ...COMMANDS.map((c) => c.options));

/** The leading positional words of `argv`, options skipped (a lenient first pass). */
function commandWords(argv: string[]): string[] {
  const { positionals } = parseArgs({ args: argv, options: ALL_OPTIONS, allowPositionals: true, strict: false });
  return positionals;
}

function resolveCommand(argv: string[], io: MainIo): { command: Command; rest: string[] } | null {
  const words = commandWords(argv);
  const found = findCommand(words);
  if (found) return found;
  const group = COMMANDS.filter((c) => c.words.length > 1 && c.words[0] === words[0]);
  if (group.length && words.length === 1 && (argv.includes('--help') || argv.includes('-h'))) {
    io.streams.stdout.write(group.map(commandHelp).join('\n'));
    return null;
  }
  if (group.length) {
    throw usageError(
      `svc ${words[0]} needs one of: ${group.map((c) => c.words[1]).join(', ')} (see svc ${words[0]} --help)`,
    );
  }
  throw usageError(`unknown command "${words.join(' ')}": run svc --help for the list`);
}

async function loadEnvFile(file: string, cwd: string, env: Record<string, string | undefined>) {
  let text: string;
  try {
    text = await readFile(resolve(cwd, file), 'utf8');
  } catch (err) {
    throw usageError(
      `--env ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  // The file wins over the shell: naming a file on the command line is the more explicit choice.
  return { ...env, ...parseDotenv(text) };
}

async function runCommand(argv: string[], io: MainIo, json: boolean): Promise<ExitCode> {
  const resolved = resolveCommand(argv, io);
  if (!resolved) return EXIT.ok;
  const { command } = resolved;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    // Node's hint about `--` is noise for these commands: keep the first sentence.
    throw usageError(`${(err as Error).message.split('. To specify')[0]!.split('\n')[0]} (usage: ${command.usage})`);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values['help']) {
    io.streams.stdout.write(commandHelp(command));
    return EXIT.ok;
  }
  const positionals = parsed.positionals.slice(command.words.length);
  if (positionals.length < command.positionals.min || positionals.length > command.positionals.max) {
    throw usageError(`wrong number of arguments (usage: ${command.usage})`);
  }
  let env = io.env;
  if (typeof values['env'] === 'string') env = await loadEnvFile(values['env'], io.cwd, env);
  if (values['no-color']) env = { ...env, NO_COLOR: '1' };
  const out = createOutput(io.streams, env, json);
  const { run } = await command.load();
  return run({ values, positionals, env, out, streams: io.streams, cwd: io.cwd });
}

/** Runs one `svc` invocation and resolves to its exit code (docs/cli.md). Never throws. */
export async function main(argv: string[], io: MainIo): Promise<ExitCode> {
  // Known before parsing, so even a usage error is reported as JSON to a script, without colour.
  const json = argv.includes('--json');
  if (argv.includes('--no-color')) io = { ...io, env: { ...io.env, NO_COLOR: '1' } };
  try {
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
      io.streams.stdout.write(generalHelp());
      return argv.length === 0 ? EXIT.usage : EXIT.ok;
    }
    if (argv[0] === '--version' || argv[0] === '-v') {
      io.streams.stdout.write(json ? `${JSON.stringify({ ok: true, version: API_VERSION })}\n` : `${API_VERSION}\n`);
      return EXIT.ok;
    }
    return await runCommand(argv, io, json);
  } catch (err) {
    if (err instanceof CliError) {
      printFailure(io.streams, io.env, json, err.code, err.message, err.extras);
      return err.exitCode;
    }
    if (err instanceof ConfigError) {
      printFailure(io.streams, io.env, json, 'config_error', err.issues.map((i) => i.message).join('; '));
      return EXIT.environment;
    }
    printFailure(
      io.streams,
      io.env,
      json,
      'internal_error',
      `unexpected failure: ${(err as Error).message?.split('\n')[0] ?? String(err)}`,
    );
    return EXIT.failure;
  }
}
