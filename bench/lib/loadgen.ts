/**
 * A lean HTTP/1.1 load generator for the fixed-request read benches (the
 * guarded route and "who am I" of `npm run bench:peers`), the same for svc and
 * its peer: raw `node:net` sockets, keep-alive, one request in flight per
 * connection (no pipelining), each connection's request serialized once to a
 * Buffer, and a minimal response parser (status line, `content-length`,
 * `transfer-encoding: chunked`, responses split over several `data` events or
 * several in one). 2xx and non-2xx answers are counted apart; req/s counts
 * 2xx only.
 *
 * `node:http`'s client (bench/lib/http-client.ts) builds an IncomingMessage,
 * a header object and a stream per answer; the generator was the limit of the
 * guarded-route figure. This one does per answer one `indexOf` for the end of
 * the head, one latin1 slice of the head and two `indexOf`s on it.
 *
 * `createLoadGenerator()` runs it in a `worker_threads` worker (its own event
 * loop, away from the bench's orchestration); `runLoad` is the same loop in
 * the calling thread. `npx tsx bench/lib/loadgen-check.ts` shows its ceiling.
 */
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

import { ResponseParser } from './response-parser.js';

export { ResponseParser, type ParsedHead } from './response-parser.js';

export interface RequestSpec {
  method?: string;
  /** Path and query, e.g. `/guarded`. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** One request as the bytes sent on the wire (`Host` from `authority`, keep-alive). */
export function serializeRequest(authority: string, spec: RequestSpec): string {
  const lines = [`${spec.method ?? 'GET'} ${spec.path} HTTP/1.1`, `host: ${authority}`];
  for (const [k, v] of Object.entries(spec.headers ?? {})) lines.push(`${k}: ${v}`);
  if (spec.body !== undefined) lines.push(`content-length: ${Buffer.byteLength(spec.body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${spec.body ?? ''}`;
}

export interface LoadOptions {
  /** `http://host:port` of the server. */
  url: string;
  connections: number;
  durationMs: number;
  /** Connection `i` sends `requests[i % requests.length]` each time (fixed cookies and headers per connection). */
  requests: RequestSpec[];
  /** Keep per-request latencies for p50/p99 (default true). */
  latency?: boolean;
}

export interface LoadResult {
  /** 2xx answers completed within the window. */
  ok: number;
  /** Non-2xx answers within the window: never counted in `rps`. */
  non2xx: number;
  /** Answers by status. */
  statuses: Record<string, number>;
  /** The head of the first non-2xx answer, to report what went wrong. */
  non2xxSample: string | null;
  /** Socket or protocol errors (each drops the connection; it is reopened). */
  errors: number;
  errorSample: string | null;
  /** Connections opened after the first ones (server `Connection: close`, errors). */
  reconnects: number;
  durationMs: number;
  /** 2xx answers per second. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Share of the window the generator's event loop was busy (near 1: the generator may be the limit). */
  elu: number;
}

/** Drives `url` for `durationMs` from `connections` keep-alive sockets in the calling thread. */
export function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const target = new URL(opts.url);
  if (target.protocol !== 'http:') throw new Error(`the load generator speaks plain HTTP only: ${opts.url}`);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const port = Number(target.port || 80);
  const authority = target.host;
  const payloads = opts.requests.map((r) => Buffer.from(serializeRequest(authority, r), 'latin1'));
  const keepLatency = opts.latency !== false;
  const lat: number[] = [];
  const statuses: Record<string, number> = {};
  let ok = 0;
  let non2xx = 0;
  let non2xxSample: string | null = null;
  let errors = 0;
  let errorSample: string | null = null;
  let reconnects = 0;
  let open = 0;
  let stopping = false;
  let onAllClosed: (() => void) | null = null;
  const sockets = new Set<Socket>();

  const elu0 = performance.eventLoopUtilization();
  const start = performance.now();
  const deadline = start + opts.durationMs;

  const closed = (s: Socket) => {
    if (!sockets.delete(s)) return false;
    open--;
    if (stopping && open === 0) onAllClosed?.();
    return true;
  };

  const openConnection = (payload: Buffer, first: boolean) => {
    if (!first) reconnects++;
    const sock = connect({ host, port, noDelay: true });
    sockets.add(sock);
    open++;
    let sentAt = 0;
    let broken = false;
    const send = () => {
      if (stopping) return void sock.destroy();
      sentAt = performance.now();
      sock.write(payload);
    };
    const parser = new ResponseParser((res) => {
      const now = performance.now();
      if (now <= deadline) {
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status >= 200 && res.status < 300) {
          ok++;
          if (keepLatency) lat.push(now - sentAt);
        } else {
          non2xx++;
          non2xxSample ??= res.head;
        }
      }
      // Nothing is in flight once an answer is complete: a socket that is done is simply dropped.
      if (stopping || now > deadline) sock.destroy();
      else if (res.keepAlive) send();
      else sock.destroy(); // the server said close; a new connection replaces it on 'close'
    });
    const fail = (e: Error) => {
      if (broken) return;
      broken = true;
      if (!stopping) {
        errors++;
        errorSample ??= e.message;
      }
      sock.destroy();
    };
    sock.on('connect', send);
    sock.on('data', (chunk: Buffer) => {
      try {
        parser.feed(chunk);
      } catch (e) {
        fail(e as Error);
      }
    });
    sock.on('end', () => {
      try {
        parser.end();
      } catch (e) {
        fail(e as Error);
      }
    });
    sock.on('error', fail);
    sock.on('close', () => {
      if (!closed(sock)) return;
      if (!stopping && performance.now() < deadline) {
        // Back off a little after an error so a refusing server does not spin the loop.
        if (broken) setTimeout(() => !stopping && openConnection(payload, false), 10);
        else openConnection(payload, false);
      }
    });
  };

  return new Promise((resolve) => {
    for (let i = 0; i < opts.connections; i++) openConnection(payloads[i % payloads.length]!, true);
    setTimeout(() => {
      stopping = true;
      const finish = () => {
        clearTimeout(grace);
        onAllClosed = null;
        const elu = performance.eventLoopUtilization(elu0).utilization;
        lat.sort((a, b) => a - b);
        const at = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? NaN;
        resolve({
          ok,
          non2xx,
          statuses,
          non2xxSample,
          errors,
          errorSample,
          reconnects,
          durationMs: opts.durationMs,
          rps: ok / (opts.durationMs / 1000),
          p50Ms: at(0.5),
          p99Ms: at(0.99),
          elu,
        });
      };
      // In-flight answers get 2 s to arrive (they end their sockets), then everything is dropped.
      const grace = setTimeout(() => {
        for (const s of sockets) s.destroy();
        sockets.clear();
        open = 0;
        finish();
      }, 2000);
      if (open === 0) finish();
      else onAllClosed = finish;
    }, opts.durationMs);
  });
}

export interface LoadGenerator {
  run(opts: LoadOptions): Promise<LoadResult>;
  close(): Promise<void>;
}

/**
 * The generator in its own `worker_threads` worker (one at a time: `run`
 * calls are queued). Set `LOADGEN_THREAD=main` to run it in the calling
 * thread instead.
 */
export function createLoadGenerator(): LoadGenerator {
  if (process.env['LOADGEN_THREAD'] === 'main') return { run: runLoad, close: async () => {} };
  const worker = new Worker(new URL('./loadgen-worker.mjs', import.meta.url), {
    workerData: { entry: new URL('./loadgen.ts', import.meta.url).href },
  });
  worker.unref();
  let queue: Promise<unknown> = Promise.resolve();
  const pending = new Map<number, { resolve: (r: LoadResult) => void; reject: (e: Error) => void }>();
  let seq = 0;
  let failure: Error | null = null;
  worker.on('message', (m: { id: number; result?: LoadResult; error?: string }) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.error !== undefined) p?.reject(new Error(m.error));
    else p?.resolve(m.result!);
  });
  const fail = (e: Error) => {
    failure = e;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`load generator worker exited (${code})`)));
  return {
    run(opts) {
      const next = queue.then(() =>
        new Promise<LoadResult>((resolve, reject) => {
          if (failure) return reject(failure);
          const id = ++seq;
          pending.set(id, { resolve, reject });
          worker.ref();
          worker.postMessage({ id, opts });
        }).finally(() => worker.unref()),
      );
      queue = next.catch(() => {});
      return next;
    },
    async close() {
      worker.removeAllListeners('exit');
      await worker.terminate();
    },
  };
}

/** `12,345 req/s (p50 1.2 ms, p99 4.5 ms)` plus the non-2xx and error counts when there are any. */
export function describeLoad(r: LoadResult): string {
  const parts = [
    `${Math.round(r.rps)} req/s`,
    `p50 ${r.p50Ms.toFixed(2)} ms`,
    `p99 ${r.p99Ms.toFixed(2)} ms`,
    `generator loop busy ${Math.round(r.elu * 100)}%`,
  ];
  if (r.non2xx)
    parts.push(
      `NON-2XX ${r.non2xx} (${Object.entries(r.statuses)
        .map(([s, c]) => `${s}×${c}`)
        .join(', ')}; first: ${r.non2xxSample?.split('\r\n')[0]})`,
    );
  if (r.errors) parts.push(`ERRORS ${r.errors} (first: ${r.errorSample})`);
  return parts.join(', ');
}
