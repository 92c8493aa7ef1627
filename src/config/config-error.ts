/**
 * Startup failure that names the variable or config key at fault. One error
 * can carry several problems (`issues`), so a newcomer sees every missing or
 * invalid variable in one go, one line each, instead of one per attempt.
 */
export class ConfigError extends Error {
  readonly key: string;
  /** Every problem this error reports (itself when there is one). */
  readonly issues: readonly ConfigError[];
  constructor(key: string, problem: string, issues?: readonly ConfigError[]) {
    super(issues && issues.length > 1 ? issues.map((i) => i.message).join('\n') : `${key}: ${problem}`);
    this.name = 'ConfigError';
    this.key = key;
    this.issues = issues && issues.length > 1 ? issues : [this];
  }

  /** One error for several problems (throws nothing itself; returns the single error unchanged). */
  static combine(errors: readonly ConfigError[]): ConfigError {
    const flat = errors.flatMap((e) => e.issues);
    if (flat.length === 1) return flat[0]!;
    return new ConfigError(flat[0]!.key, '', flat);
  }
}

/** The lines an entry file prints for a startup failure (`svc-auth: configuration error: KEY: problem`). */
export function configErrorLines(err: ConfigError): string[] {
  return err.issues.map((i) => `svc-auth: configuration error: ${i.message}`);
}
