/**
 * Log redaction (contract §5.10): emails, E.164 numbers, bearer values,
 * magic-link path tokens and the values of sensitive query/JSON keys become
 * `[REDACTED]`. Used by the API and the adapters for every log line.
 * A failed database query's bound parameters (drizzle appends them to the
 * error message after `params:`) are withheld whole: they hold client IPs,
 * hashes and whatever else a statement binds, and no log line needs them.
 */
const R = '[REDACTED]';
const SENSITIVE_KEYS = [
  'token',
  'refreshToken',
  'verificationToken',
  'code',
  'state',
  'secret',
  'salt',
  'identifier',
  'client_secret',
];
const keyAlt = SENSITIVE_KEYS.join('|');
const JSON_VALUE = new RegExp(`("(?:${keyAlt})"\\s*:\\s*)("(?:[^"\\\\]|\\\\.)*"|[^,}\\]\\s]+)`, 'g');
const QUERY_VALUE = new RegExp(`([?&](?:${keyAlt})=)[^&#\\s"]*`, 'g');

/**
 * @example
 * redact('POST /magic-link/verify/abc for a@b.co'); // 'POST /magic-link/verify/[REDACTED] for [REDACTED]'
 */
export function redact(text: string): string {
  return (
    text
      // Raw form: the list runs to the end of the line.
      .replace(/\nparams: [^\n]*/g, `\nparams: ${R}`)
      // Inside a serialized JSON string (`\\n` escaped): it runs to the string's closing quote.
      .replace(/\\nparams: (?:[^"\\]|\\.)*/g, `\\nparams: ${R}`)
      .replace(/(Bearer\s+)[^\s"',]+/gi, `$1${R}`)
      .replace(/(\/magic-link\/verify\/)[^\s/?#"]+/g, `$1${R}`)
      .replace(JSON_VALUE, `$1"${R}"`)
      .replace(QUERY_VALUE, `$1${R}`)
      .replace(/[^\s@"'<>(),;:]+@[^\s@"'<>(),;:]+\.[^\s@"'<>(),;:]+/g, R)
      .replace(/\+[1-9]\d{6,14}\b/g, R)
  );
}
