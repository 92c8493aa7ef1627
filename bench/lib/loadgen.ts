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

const HEAD = 0;
const BODY = 1;
const CHUNK_SIZE = 2;
const CHUNK_DATA = 3;
const CHUNK_END = 4;
const TRAILERS = 5;
const UNTIL_CLOSE = 6;

/** Longest response head (or chunk-size line) the parser buffers before giving up. */
const MAX_HEAD = 64 * 1024;

export interface ParsedHead {
  status: number;
  /** False when the server said `Connection: close` (or spoke HTTP/1.0 without keep-alive). */
  keepAlive: boolean;
  /** The status line and headers, latin1, without the final blank line. */
  head: string;
}

/**
 * Incremental HTTP/1.1 response framing. `feed` takes the bytes of one socket
 * in order, however they were split, and calls `onResponse` once per complete
 * response (after its last body byte). Bodies are skipped, never copied.
 * Throws on bytes that are not HTTP (the caller drops the connection).
 */
export class ResponseParser {
  private state = HEAD;
  private pending: Buffer | null = null;
  private remaining = 0;
  private current: ParsedHead | null = null;

  constructor(private readonly onResponse: (res: ParsedHead) => void) {}

  /** True between responses (nothing buffered, no response half read). */
  get idle(): boolean {
    return this.state === HEAD && this.pending === null;
  }

  feed(chunk: Buffer): void {
    let buf = chunk;
    if (this.pending !== null) {
      buf = Buffer.concat([this.pending, chunk]);
      this.pending = null;
    }
    const n = buf.length;
    let i = 0;
    while (i < n) {
      switch (this.state) {
        case HEAD: {
          const end = buf.indexOf('\r\n\r\n', i, 'latin1');
          if (end < 0) return this.keep(buf, i);
          this.startResponse(buf.toString('latin1', i, end));
          i = end + 4;
          break;
        }
        case BODY: {
          const take = Math.min(this.remaining, n - i);
          i += take;
          this.remaining -= take;
          if (this.remaining === 0) this.finish();
          break;
        }
        case CHUNK_SIZE: {
          const eol = buf.indexOf('\r\n', i, 'latin1');
          if (eol < 0) return this.keep(buf, i);
          const line = buf.toString('latin1', i, eol);
          const semi = line.indexOf(';'); // chunk extensions are ignored
          const hex = (semi < 0 ? line : line.slice(0, semi)).trim();
          if (!/^[0-9a-fA-F]{1,8}$/.test(hex)) throw new Error(`bad chunk size line: ${JSON.stringify(line.slice(0, 40))}`);
          const size = parseInt(hex, 16);
          i = eol + 2;
          if (size === 0) this.state = TRAILERS;
          else {
            this.remaining = size;
            this.state = CHUNK_DATA;
          }
          break;
        }
        case CHUNK_DATA: {
          const take = Math.min(this.remaining, n - i);
          i += take;
          this.remaining -= take;
          if (this.remaining === 0) {
            this.remaining = 2; // the CRLF after the data
            this.state = CHUNK_END;
          }
          break;
        }
        case CHUNK_END: {
          const expected = this.remaining === 2 ? 0x0d : 0x0a;
          if (buf[i] !== expected) throw new Error('chunk data not followed by CRLF');
          i++;
          if (--this.remaining === 0) this.state = CHUNK_SIZE;
          break;
        }
        case TRAILERS: {
          const eol = buf.indexOf('\r\n', i, 'latin1');
          if (eol < 0) return this.keep(buf, i);
          const empty = eol === i;
          i = eol + 2;
          if (empty) this.finish(); // else: a trailer field, skipped
          break;
        }
        case UNTIL_CLOSE:
          return; // everything up to the close is body
      }
    }
  }

  /** The connection closed: completes a body delimited by the close, else throws if a response was cut short. */
  end(): void {
    if (this.state === UNTIL_CLOSE) return this.finish();
    if (!this.idle) throw new Error('connection closed in the middle of a response');
  }

  private keep(buf: Buffer, from: number): void {
    if (buf.length - from > MAX_HEAD) throw new Error(`response head or chunk line longer than ${MAX_HEAD} bytes`);
    this.pending = from === 0 ? buf : buf.subarray(from);
  }

  private startResponse(head: string): void {
    if (!head.startsWith('HTTP/1.')) throw new Error(`not an HTTP/1.x response: ${JSON.stringify(head.slice(0, 40))}`);
    const status = Number(head.slice(9, 12));
    if (head.charCodeAt(8) !== 32 || !Number.isInteger(status) || status < 100) throw new Error(`bad status line: ${JSON.stringify(head.slice(0, 40))}`);
    if (status < 200) {
      this.state = HEAD; // 1xx: informational, the real answer follows
      return;
    }
    const lower = head.toLowerCase();
    const http10 = lower.charCodeAt(7) === 48; // HTTP/1.0
    const connection = /\r\nconnection:[ \t]*([^\r]*)/.exec(lower)?.[1] ?? '';
    const keepAlive = http10 ? connection.includes('keep-alive') : !connection.includes('close');
    this.current = { status, keepAlive, head };
    if (status === 204 || status === 304) return this.finish();
    if (/\r\ntransfer-encoding:[^\r]*chunked/.test(lower)) {
      this.state = CHUNK_SIZE;
      return;
    }
    const cl = /\r\ncontent-length:[ \t]*(\d+)[ \t]*(?:\r|$)/.exec(lower);
    if (cl) {
      this.remaining = Number(cl[1]);
      if (this.remaining === 0) return this.finish();
      this.state = BODY;
      return;
    }
    if (/\r\ncontent-length:/.test(lower)) throw new Error('bad content-length');
    this.current.keepAlive = false;
    this.state = UNTIL_CLOSE;
  }

  private finish(): void {
    const res = this.current!;
    this.current = null;
    this.state = HEAD;
    this.onResponse(res);
  }
}

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
      const next = queue.then(
        () =>
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
  const parts = [`${Math.round(r.rps)} req/s`, `p50 ${r.p50Ms.toFixed(2)} ms`, `p99 ${r.p99Ms.toFixed(2)} ms`, `generator loop busy ${Math.round(r.elu * 100)}%`];
  if (r.non2xx) parts.push(`NON-2XX ${r.non2xx} (${Object.entries(r.statuses).map(([s, c]) => `${s}×${c}`).join(', ')}; first: ${r.non2xxSample?.split('\r\n')[0]})`);
  if (r.errors) parts.push(`ERRORS ${r.errors} (first: ${r.errorSample})`);
  return parts.join(', ');
}
