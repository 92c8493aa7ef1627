/**
 * The `svc` exit codes (docs/cli.md): scripts branch on them, so they are
 * part of the command line's public surface and never change meaning.
 */
export const EXIT = {
  /** The command did what it was asked (doctor: no error finding). */
  ok: 0,
  /** Refused or failed: a validation refusal, a doctor error finding, a failed write. */
  failure: 1,
  /** The command line itself is wrong: unknown command or option, missing or malformed argument. */
  usage: 2,
  /** The environment is unusable: DATABASE_URL invalid, database unreachable, not migrated or not bootstrapped. */
  environment: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * An expected failure carrying its exit code, a stable snake_case code and a
 * one-line message. Commands throw it; `main` prints it and exits.
 */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  readonly code: string;
  readonly extras: Record<string, unknown> | undefined;
  constructor(exitCode: ExitCode, code: string, message: string, extras?: Record<string, unknown>) {
    // One line, always: a multi-line cause would break `svc … | head -1` and log parsers.
    super(message.replace(/\s*\n\s*/g, '; '));
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.code = code;
    this.extras = extras;
  }
}

export const usageError = (message: string) => new CliError(EXIT.usage, 'usage_error', message);
