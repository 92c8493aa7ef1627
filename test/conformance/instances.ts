/**
 * More instances of the API on the database of the running target, for the
 * several-instances cases. Every instance gets the
 * target's own configuration, ISSUER included, so tokens minted by one are
 * accepted by the others.
 */
import { freePort, removeDir, tempDir, type Spawned } from '../runtime/processes.js';
import { startNode, startWorkerd } from './targets.js';

export interface Instance {
  base: string;
  stop: () => Promise<void>;
}

export async function extraWorkerd(env: Record<string, string>, persistDir?: string): Promise<Instance> {
  const dir = tempDir('conformance-extra-workerd');
  const port = await freePort();
  let worker: Spawned | undefined;
  try {
    worker = await startWorkerd(dir, env, port, persistDir);
  } catch (err) {
    removeDir(dir);
    throw err;
  }
  return {
    base: `http://127.0.0.1:${port}`,
    stop: async () => {
      await worker?.stop();
      removeDir(dir);
    },
  };
}

export async function extraNode(env: Record<string, string>): Promise<Instance> {
  const port = await freePort();
  const node = await startNode(env, port);
  return { base: `http://127.0.0.1:${port}`, stop: () => node.stop() };
}
