/** Starts the demo app on Node (`npm start` runs it next to the auth API). */
import { serve } from '@hono/node-server';
import { createDemoApp, type DemoOptions } from './app.js';

export const DEMO_PORT = 3000;

export async function startDemo(opts: DemoOptions & { port?: number; hostname?: string }) {
  const { app, outbox } = createDemoApp(opts);
  const port = opts.port ?? DEMO_PORT;
  const server = serve({ fetch: app.fetch, port, hostname: opts.hostname ?? 'localhost' });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  const stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { url: `http://localhost:${port}`, stop, outbox };
}
