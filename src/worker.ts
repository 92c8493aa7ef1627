/**
 * Cloudflare Workers entry. The app is built once per isolate from the
 * bindings (`wrangler.toml` vars and secrets); `DATABASE_URL` must be an
 * http(s)/libsql URL (sqld or Turso): `@libsql/client` resolves to its web
 * client under workerd. Boot failures answer 500 and are retried by the next request.
 */
import { createAuthApi, runMaintenance, type AuthApi } from './index.js';
import { INTERNAL_ERROR_BODY } from './errors.js';

type Env = Record<string, string | undefined>;
interface ExecutionContext {
  waitUntil(p: Promise<unknown>): void;
  passThroughOnException(): void;
}

let booting: Promise<AuthApi> | null = null;

function boot(env: Env): Promise<AuthApi> {
  booting ??= createAuthApi({ env, connectionIp: (c) => c.req.header('cf-connecting-ip') }).catch((err) => {
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
