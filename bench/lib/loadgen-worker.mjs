// The load generator's worker thread (see loadgen.ts, createLoadGenerator): registers
// tsx in this thread, loads the generator, and runs one `runLoad` per message.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { runLoad } = await import(workerData.entry);
parentPort.on('message', async ({ id, opts }) => {
  try {
    parentPort.postMessage({ id, result: await runLoad(opts) });
  } catch (e) {
    parentPort.postMessage({ id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  }
});
