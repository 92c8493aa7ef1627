/**
 * Cloudflare Workers entry. The app is built once per isolate from the
 * bindings (`wrangler.toml` vars, secrets and D1). Storage:
 * - `DATABASE_URL` set (http(s)/libsql: sqld or Turso) → libSQL's web client;
 * - else a D1 binding: the one named by `DATABASE_BINDING`, default `DB`.
 * Boot failures answer 500 and are retried by the next request.
 */
import { ConfigError } from './config/config-error.js';
import { d1Client, isD1Binding, type D1DatabaseLike } from './db/d1-client.js';
import { INTERNAL_ERROR_BODY } from './errors.js';
import { createAuthApi, runMaintenance, type AuthApi } from './index.js';

type Env = Record<string, unknown>;
interface ExecutionContext {
  waitUntil(p: Promise<unknown>): void;
  passThroughOnException(): void;
}

let booting: Promise<AuthApi> | null = null;

/** The D1 binding to use and its name, or null when a DATABASE_URL selects libSQL. */
export function d1BindingOf(env: Env): { name: string; binding: D1DatabaseLike } | null {
  if (typeof env['DATABASE_URL'] === 'string' && env['DATABASE_URL'] !== '') return null;
  const named = typeof env['DATABASE_BINDING'] === 'string' ? env['DATABASE_BINDING'] : undefined;
  const binding = env[named ?? 'DB'];
  if (isD1Binding(binding)) return { name: named ?? 'DB', binding };
  if (named) throw new ConfigError('DATABASE_BINDING', `there is no D1 binding named ${named}: add [[d1_databases]] binding = "${named}" to wrangler.toml`);
  throw new ConfigError('DATABASE_URL', 'is required on Workers without a D1 binding: add [[d1_databases]] binding = "DB" to wrangler.toml, or set an http(s)/libsql URL');
}

function boot(env: Env): Promise<AuthApi> {
  booting ??= (async () => {
    const strings = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const d1 = d1BindingOf(env);
    try {
      return await createAuthApi({ env: strings, ...(d1 ? { client: d1Client(d1.binding) } : {}), connectionIp: (c) => c.req.header('cf-connecting-ip') });
    } catch (err) {
      // A D1 that cannot be read or migrated: say which binding, so the operator knows where to look.
      if (d1 && !(err instanceof ConfigError)) throw new Error(`D1 binding ${d1.name}: ${(err as Error).message}`, { cause: err });
      throw err;
    }
  })().catch((err) => {
    booting = null;
    throw err;
  });
  return booting;
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    try {
      const app = await boot(env);
      return app.fetch(request, env, ctx as Parameters<AuthApi['fetch']>[2]);
    } catch (err) {
      console.error(`svc-auth: boot failed: ${(err as Error).message}`);
      return Response.json(INTERNAL_ERROR_BODY, { status: 500, headers: { 'Cache-Control': 'no-store' } });
    }
  },
  async scheduled(_event: unknown, env: Env, ctx: ExecutionContext): Promise<void> {
    const app = await boot(env);
    ctx.waitUntil(runMaintenance(app.deps.db, app.deps.clock.now()));
  },
};
