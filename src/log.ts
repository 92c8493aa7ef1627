/** Structured, redacted logging. Nothing secret reaches a log line (contract §0.4, §5.10). */
import { redact } from '../adapter/core/redact.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
}

export type LogSink = (level: LogLevel, line: string) => void;

const consoleSink: LogSink = (level, line) => {
  (level === 'error' ? console.error : level === 'warn' ? console.warn : console.log)(line);
};

function serialize(fields: Record<string, unknown>): string {
  return JSON.stringify(fields, (_k, v) =>
    v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : typeof v === 'bigint' ? String(v) : v,
  );
}

/** A logger whose every line passes through `redact`. Tests inject a sink to capture lines. */
export function createLogger(sink: LogSink = consoleSink, minLevel: LogLevel = 'info'): Logger {
  const order: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
  return {
    log(level, message, fields) {
      if (order[level] < order[minLevel]) return;
      const line = `[svc-auth] ${level} ${message}${fields ? ' ' + serialize(fields) : ''}`;
      sink(level, redact(line));
    },
  };
}
