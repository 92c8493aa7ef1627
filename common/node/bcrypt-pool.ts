/**
 * Refresh-token bcrypt on worker threads, for the Node and Bun entries
 * (`src/node.ts`, `src/bun.ts`) and Node embedders of `createAuthApi`. Inline, bcrypt holds the event loop for its
 * whole run (~1.6 ms at cost 4, ~100 ms at cost 10 here) on every sign-in and
 * refresh, and every other request of the process waits behind it; here it
 * runs beside the loop, on the cores the loop does not use. The result is the
 * same `bcrypt-ts` hash or comparison the inline hasher gives.
 *
 * Node and Bun only (`node:worker_threads`, so it lives with the other
 * Node-only helpers and ships as `svc-auth/node`); Workers and Deno keep the
 * inline hasher. A job whose worker dies is refused with an error (the request gets
 * the API's 500 envelope) and the next job starts a new worker.
 *
 * @example
 * const api = await createAuthApi({ env: process.env, refreshTokenHasher: createBcryptPool() });
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { RefreshTokenHasher } from '../refresh-token-hasher.js';

/** The pool's current workers (for tests that end one as a crash would). */
export const POOL_WORKERS = Symbol('svc.bcryptPool.workers');

export interface BcryptPool extends RefreshTokenHasher {
  /** Worker threads in the pool. */
  readonly size: number;
  /** Stops the workers; jobs still running are refused. */
  close(): Promise<void>;
  [POOL_WORKERS](): Worker[];
}

interface Job {
  resolve(value: string | boolean): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  jobs: Map<number, Job>;
  /** Ended (crashed, or failed to start): replaced when a job next picks this slot. */
  dead: boolean;
}

// The worker is an eval'd script, so it loads the same way under plain Node, tsx, vitest and Bun.
// Only dynamic import(): the script runs as CommonJS or, when the process was started with
// --input-type=module (inherited by workers), as an ES module.
const workerSource = (bcryptUrl: string) => `
import('node:worker_threads').then(({ parentPort }) => {
  const bcrypt = import(${JSON.stringify(bcryptUrl)});
  parentPort.on('message', async (m) => {
    try {
      const { hash, compare } = await bcrypt;
      parentPort.postMessage({ id: m.id, value: m.op === 'hash' ? await hash(m.token, m.cost) : await compare(m.token, m.hash) });
    } catch (err) {
      parentPort.postMessage({ id: m.id, error: String((err && err.message) || err) });
    }
  });
});`;

/** One thread per core the event loop does not need, 1–4 by default. */
export function createBcryptPool(size = Math.max(1, Math.min(4, availableParallelism() - 1))): BcryptPool {
  const source = workerSource(pathToFileURL(createRequire(import.meta.url).resolve('bcrypt-ts')).href);
  const slots: Slot[] = [];
  let nextId = 1;
  let closed = false;

  const spawn = (): Slot => {
    const slot: Slot = { worker: new Worker(source, { eval: true }), jobs: new Map(), dead: false };
    slot.worker.unref();
    slot.worker.on('message', (m: { id: number; value?: string | boolean; error?: string }) => {
      const job = slot.jobs.get(m.id);
      if (!job) return;
      slot.jobs.delete(m.id);
      if (slot.jobs.size === 0) slot.worker.unref();
      if (m.error !== undefined) job.reject(new Error(`bcrypt worker: ${m.error}`));
      else job.resolve(m.value!);
    });
    // Replaced lazily, by the next job: a worker that cannot start fails that job, it does not respawn in a loop.
    const fail = (err: Error) => {
      slot.dead = true;
      for (const job of slot.jobs.values()) job.reject(err);
      slot.jobs.clear();
    };
    slot.worker.on('error', (err) => fail(new Error(`bcrypt worker failed: ${err.message}`)));
    slot.worker.on('exit', (code) => fail(new Error(`bcrypt worker exited (code ${code})`)));
    return slot;
  };
  for (let i = 0; i < size; i++) slots.push(spawn());

  const run = <T extends string | boolean>(message: Record<string, unknown>): Promise<T> => {
    if (closed) return Promise.reject(new Error('bcrypt pool is closed'));
    // The least busy worker; ties go to the first.
    let index = 0;
    for (let i = 1; i < slots.length; i++) if (slots[i]!.jobs.size < slots[index]!.jobs.size) index = i;
    if (slots[index]!.dead) slots[index] = spawn();
    const slot = slots[index]!;
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      // A running job keeps the process alive, as an inline hash would.
      if (slot.jobs.size === 0) slot.worker.ref();
      slot.jobs.set(id, { resolve: resolve as (v: string | boolean) => void, reject });
      slot.worker.postMessage({ ...message, id });
    });
  };

  return {
    size,
    hash: (token, cost) => run<string>({ op: 'hash', token, cost }),
    compare: (token, hash) => run<boolean>({ op: 'compare', token, hash }),
    async close() {
      closed = true;
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
    [POOL_WORKERS]: () => slots.map((s) => s.worker),
  };
}
