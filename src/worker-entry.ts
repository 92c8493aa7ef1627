/**
 * What both Workers entries share: the app is built once per isolate from the
 * bindings (`wrangler.toml` vars, secrets and the database), a boot failure
 * answers the 500 envelope and is retried by the next request, and the cron
 * trigger runs the maintenance purge and sends due webhook deliveries. The entries differ only in storage:
 * `worker.ts` (D1) and `worker-libsql.ts` (sqld/Turso over HTTP), so each
 * bundle carries only its own database driver.
 */
import { ConfigError } from './config/config-error.js';
import { createAuthApiWith, type AuthApi, type OpenDatabaseUrl } from './create-api.js';
import type { Client } from '@libsql/client';
import { INTERNAL_ERROR_BODY } from './errors.js';
import { runMaintenance } from './services/maintenance.js';
import { dispatchDue } from './services/webhooks/dispatcher.js';

export type WorkerEnv = Record<string, unknown>;
export interface ExecutionContext {
  waitUntil(p: Promise<unknown>): void;
  passThroughOnException(): void;
}

/** How an entry reaches its database: a client from a binding, or an opener for DATABASE_URL. */
export interface WorkerStorage {
  /** A ready client (D1) and the name to blame when it cannot be read or migrated. */
  client?: { client: Client; label: string };
  /** Opens DATABASE_URL (sqld/Turso). */
  open: OpenDatabaseUrl;
}

/**
 * One log line per refused request: the first problem in full (the service
 * token leads when it is missing), then how many more and which keys.
 */
export function bootFailureLine(err: unknown): string {
  if (!(err instanceof ConfigError)) return `svc-auth: boot failed: ${(err as Error).message}`;
  const [first, ...rest] = err.issues;
  const more = rest.length ? ` (and ${rest.length} more: ${rest.map((i) => i.key).join(', ')})` : '';
  return `svc-auth: refusing to serve: ${first!.message}${more}`;
}

/** The Workers module (`fetch` + `scheduled`) over the storage `storageOf` picks from the bindings. */
export function createWorker(storageOf: (env: WorkerEnv) => WorkerStorage) {
  let booting: Promise<AuthApi> | null = null;

  function boot(env: WorkerEnv): Promise<AuthApi> {
    booting ??= (async () => {
      const strings = Object.fromEntries(
        Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'),
      );
      const storage = storageOf(env);
      try {
        return await createAuthApiWith(
          {
            env: strings,
            ...(storage.client ? { client: storage.client.client } : {}),
            connectionIp: (c) => c.req.header('cf-connecting-ip'),
          },
          storage.open,
        );
      } catch (err) {
        // A database that cannot be read or migrated: say which binding, so the operator knows where to look.
        if (storage.client && !(err instanceof ConfigError))
          throw new Error(`${storage.client.label}: ${(err as Error).message}`, { cause: err });
        throw err;
      }
    })().catch((err) => {
      booting = null;
      throw err;
    });
    return booting;
  }

  return {
    async fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Promise<Response> {
      try {
        const app = await boot(env);
        return app.fetch(request, env, ctx as Parameters<AuthApi['fetch']>[2]);
      } catch (err) {
        console.error(bootFailureLine(err));
        return Response.json(INTERNAL_ERROR_BODY, { status: 500, headers: { 'Cache-Control': 'no-store' } });
      }
    },
    async scheduled(_event: unknown, env: WorkerEnv, ctx: ExecutionContext): Promise<void> {
      const app = await boot(env);
      ctx.waitUntil(runMaintenance(app.deps.db, app.deps.clock.now()));
      // Webhook deliveries that came due while no request arrived (retries, a crashed sender's lease).
      ctx.waitUntil(dispatchDue(app.deps));
    },
  };
}
