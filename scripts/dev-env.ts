/**
 * Development environment of `npm start`: the defaults and `.env` layering of
 * `cli/dev-env.ts` (shared with `svc doctor --development`), and `startApi()`
 * which boots the Node entry with them. The adapter demo app is started next
 * to it from `scripts/start.ts`.
 */
import { startNodeApi } from '../src/node.js';
import { resolveDevEnv } from '../cli/dev-env.js';

export {
  DEV_API_HOST,
  DEV_API_PORT,
  DEV_APP_ORIGIN,
  devDefaults,
  parseDotEnv,
  readDotEnv,
  resolveDevEnv,
} from '../cli/dev-env.js';

export interface StartApiOptions {
  /** Environment to start from (defaults to `resolveDevEnv()`). */
  env?: Record<string, string | undefined>;
}

/** Starts the auth API with the development defaults; resolves to its URL and a stop function. */
export async function startApi(opts: StartApiOptions = {}) {
  const env = opts.env ?? resolveDevEnv();
  const { app, server, url } = await startNodeApi(env);
  const stop = async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.close();
  };
  return { app, url, stop, env };
}
