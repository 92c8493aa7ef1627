/** Startup failure that names the variable or config key at fault (one clear line). */
export class ConfigError extends Error {
  readonly key: string;
  constructor(key: string, problem: string) {
    super(`${key}: ${problem}`);
    this.name = 'ConfigError';
    this.key = key;
  }
}
