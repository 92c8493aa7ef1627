/**
 * Opening DATABASE_URL for a command, with the API's own rules: the URL is
 * validated by `parseEnv` and opened by `openDatabase` (same PRAGMAs, same
 * HTTP call timeout). Only `svc migrate` may create a database file.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../src/config/config-error.js';
import { parseEnv } from '../src/config/env.js';
import type { Database } from '../src/db/client.js';
import { openDatabase } from '../src/db/open.js';
import { CliError, EXIT } from './exit-codes.js';

export interface DatabaseTarget {
  url: string;
  authToken: string | undefined;
  dbTimeoutMs: number;
  /** The URL without credentials, safe to print. */
  display: string;
  /** Absolute path for a `file:` URL. */
  filePath: string | null;
}

/** The URL without user info or query (a Turso token may sit in `?authToken=`). */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.protocol === 'file:') return url.split('?')[0]!;
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return url.split('?')[0]!;
  }
}

function filePathOf(url: string, cwd: string): string | null {
  if (!url.startsWith('file:') || url.startsWith('file::memory:')) return null;
  const bare = url.split('?')[0]!;
  return bare.startsWith('file://') ? fileURLToPath(bare) : resolve(cwd, bare.slice('file:'.length));
}

/**
 * DATABASE_URL, DATABASE_AUTH_TOKEN and DB_TIMEOUT_MS read through `parseEnv`
 * so the CLI accepts exactly what the API accepts. ISSUER is a placeholder:
 * these commands do not need it, and parseEnv would otherwise refuse the record.
 */
export function databaseTarget(env: Record<string, string | undefined>, cwd: string): DatabaseTarget {
  let parsed: ReturnType<typeof parseEnv>;
  try {
    parsed = parseEnv({
      ISSUER: 'http://svc-cli.invalid',
      DATABASE_URL: env['DATABASE_URL'],
      DATABASE_AUTH_TOKEN: env['DATABASE_AUTH_TOKEN'],
      DB_TIMEOUT_MS: env['DB_TIMEOUT_MS'],
    });
  } catch (err) {
    if (err instanceof ConfigError)
      throw new CliError(EXIT.environment, 'config_error', err.issues.map((i) => i.message).join('; '));
    throw err;
  }
  const url = parsed.databaseUrl;
  if (url === ':memory:' || url.startsWith('file::memory:')) {
    throw new CliError(
      EXIT.environment,
      'config_error',
      'DATABASE_URL: an in-memory database is empty in every process; point it at a file, sqld or Turso',
    );
  }
  return {
    url,
    authToken: parsed.databaseAuthToken,
    dbTimeoutMs: parsed.dbTimeoutMs,
    display: displayUrl(url),
    filePath: filePathOf(url, cwd),
  };
}

/**
 * Opens the target. Without `create`, a missing database file is an
 * environment error instead of a silently created empty file.
 */
export async function openTarget(target: DatabaseTarget, { create }: { create: boolean }): Promise<Database> {
  if (target.filePath && !existsSync(target.filePath)) {
    if (!create)
      throw new CliError(
        EXIT.environment,
        'database_not_found',
        `database file ${target.filePath} does not exist (DATABASE_URL=${target.display}): run svc migrate first`,
      );
    try {
      mkdirSync(dirname(target.filePath), { recursive: true });
    } catch (err) {
      throw new CliError(
        EXIT.environment,
        'database_unreachable',
        `cannot create the directory of ${target.filePath} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
  }
  try {
    // openDatabase runs PRAGMAs, so a remote server that does not answer fails here, not later.
    return await openDatabase(target.url, target.authToken, { callTimeoutMs: target.dbTimeoutMs });
  } catch (err) {
    throw new CliError(
      EXIT.environment,
      'database_unreachable',
      `cannot reach the database at ${target.display} (${firstLine(err)})`,
    );
  }
}

export function firstLine(err: unknown): string {
  const e = err as Error & { cause?: unknown };
  const own = e?.message?.split('\n')[0] ?? String(err);
  // drizzle and the libSQL client wrap the driver error ("Failed query: …"); the cause says why.
  const cause = e?.cause instanceof Error ? e.cause.message.split('\n')[0] : '';
  return cause && !own.includes(cause) ? `${own}: ${cause}` : own;
}
