/** Node entry: `npm run api`. Configured from env (PORT, HOST, DATABASE_URL, …). */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { createAuthApi, ConfigError, configErrorLines } from './index.js';

export async function startNodeApi(env: Record<string, string | undefined> = process.env) {
  const url = env['DATABASE_URL'] ?? 'file:./.data/svc.db';
  if (url.startsWith('file:') && !url.startsWith('file::memory:')) {
    const dir = dirname(url.slice(5));
    try {
      mkdirSync(dir, { recursive: true });
    } catch (err) {
      throw new ConfigError('DATABASE_URL', `cannot create the database directory ${dir} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): choose a writable path`);
    }
  }
  const app = await createAuthApi({ env, connectionIp: (c) => getConnInfo(c).remote.address });
  const port = Number(env['PORT'] ?? 8787);
  const hostname = env['HOST'] ?? '127.0.0.1';
  const server = serve({ fetch: app.fetch, port, hostname });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', (err) => reject(new ConfigError('PORT', `cannot listen on ${hostname}:${port} (${(err as NodeJS.ErrnoException).code ?? err.message})`)));
  });
  return { app, server, url: `http://${hostname}:${port}` };
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/src/node.ts')) {
  startNodeApi().then(
    ({ url }) => console.log(`svc auth API listening on ${url}`),
    (err) => {
      console.error(err instanceof ConfigError ? configErrorLines(err).join('\n') : err);
      process.exit(1);
    },
  );
}
