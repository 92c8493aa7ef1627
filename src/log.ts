/** Structured, redacted logging. Nothing secret reaches a log line (contract §0.4, §5.10). */
import { redact } from '../common/redact.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
}

export type LogSink = (level: LogLevel, line: string) => void;

const consoleSink: LogSink = (level, line) => {
  (level === 'error' ? console.error : level === 'warn' ? console.warn : console.log)(line);
};

/**
 * An error's causes (`name code: message`, up to three deep), then its own message, on one line.
 * drizzle's "Failed query: …" message names the statement, and its cause is
 * the driver error that says why (`SQLITE_BUSY`, a timed-out HTTP call); a log
 * line with only the first cannot be diagnosed. The line still passes through
 * `redact`, so bound parameters stay out.
 *
 * @example
 * log.log('warn', 'global rate limiter unavailable; failing open', { error: errorSummary(err) });
 */
export function errorSummary(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const causes: string[] = [];
  let cause = err instanceof Error ? err.cause : undefined;
  for (let depth = 0; cause !== undefined && cause !== null && depth < 3; depth++) {
    const code = (cause as { code?: unknown }).code;
    causes.push(
      `${cause instanceof Error ? cause.name : typeof cause}${typeof code === 'string' ? ` ${code}` : ''}: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  // Causes first: `redact` cuts a drizzle message from its "params:" to the end.
  return causes.length ? `${causes.join(' <- ')} | ${message}` : message;
}

function serialize(fields: Record<string, unknown>): string {
  return JSON.stringify(fields, (_k, v) =>
    v instanceof Error
      ? { name: v.name, message: errorSummary(v), stack: v.stack }
      : typeof v === 'bigint'
        ? String(v)
        : v,
  );
}

/** A logger whose every line passes through `redact`. Tests inject a sink to capture lines. */
export function createLogger(sink: LogSink = consoleSink, minLevel: LogLevel = 'info'): Logger {
  const order: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
  return {
    log(level, message, fields) {
      if (order[level] < order[minLevel]) return;
      const line = `[svc-auth] ${level} ${message}${fields ? ` ${serialize(fields)}` : ''}`;
      sink(level, redact(line));
    },
  };
}
