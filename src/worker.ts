/**
 * Cloudflare Workers entry on D1 (the shipped `wrangler.toml`): the binding
 * named by `DATABASE_BINDING`, default `DB`. sqld or Turso on Workers use
 * `src/worker-libsql.ts` instead (`wrangler.sqld.example.toml`), so this
 * bundle carries no libSQL client. Boot failures answer 500 and are retried by
 * the next request (`worker-entry.ts`).
 */
import { ConfigError } from './config/config-error.js';
import { d1Client, isD1Binding, type D1DatabaseLike } from './db/d1-client.js';
import { createWorker, type WorkerEnv } from './worker-entry.js';

/** The D1 binding to use and its name; a ConfigError names what to fix when there is none. */
export function d1BindingOf(env: WorkerEnv): { name: string; binding: D1DatabaseLike } {
  const named = typeof env['DATABASE_BINDING'] === 'string' ? env['DATABASE_BINDING'] : undefined;
  const binding = env[named ?? 'DB'];
  if (isD1Binding(binding)) return { name: named ?? 'DB', binding };
  if (named)
    throw new ConfigError(
      'DATABASE_BINDING',
      `there is no D1 binding named ${named}: add [[d1_databases]] binding = "${named}" to wrangler.toml`,
    );
  if (typeof env['DATABASE_URL'] === 'string' && env['DATABASE_URL'] !== '') {
    throw new ConfigError(
      'DATABASE_URL',
      'is for sqld or Turso, which the libSQL entry serves: set main = "src/worker-libsql.ts" (see wrangler.sqld.example.toml), or add [[d1_databases]] binding = "DB" to use D1',
    );
  }
  throw new ConfigError(
    'DATABASE_URL',
    'is required on Workers without a D1 binding: add [[d1_databases]] binding = "DB" to wrangler.toml, or set an http(s)/libsql URL and main = "src/worker-libsql.ts"',
  );
}

const noUrlOpener = async (): Promise<never> => {
  throw new ConfigError(
    'DATABASE_URL',
    'is not opened by the D1 entry: use main = "src/worker-libsql.ts" for sqld or Turso',
  );
};

export default createWorker((env) => {
  const d1 = d1BindingOf(env);
  return { client: { client: d1Client(d1.binding), label: `D1 binding ${d1.name}` }, open: noUrlOpener };
});
