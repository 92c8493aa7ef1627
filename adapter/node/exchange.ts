/**
 * One request/response exchange of the Node transport (`fetch.ts`): sends
 * the request on the keep-alive agent (once more on a fresh socket when an
 * idempotent call found its kept-alive socket closed), enforces the abort
 * signal or the numeric deadline (`FETCH_DEADLINE_MS`,
 * adapter/core/fetch-deadline.ts), reads the whole body within its limit,
 * decompresses it and builds the Web `Response`. Node only.
 */
import type { ClientRequest, IncomingMessage, RequestOptions, request as httpRequest } from 'node:http';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import { BufferedResponse } from './buffered-response.js';

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
/** Safe to send again when a kept-alive socket turned out to be closed by the server before it answered. */
const RETRYABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE']);

type Decoder = (buf: Buffer, cb: (err: Error | null, out: Buffer) => void) => void;
const DECODERS: Record<string, Decoder> = { gzip: gunzip, 'x-gzip': gunzip, deflate: inflate, br: brotliDecompress };

/** What the global `fetch` rejects with for a network failure. */
export function failed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

export interface Exchange {
  request: typeof httpRequest;
  target: RequestOptions;
  body: Buffer | null;
  method: string;
  signal: AbortSignal | undefined;
  maxBodyBytes: number;
  redirect: RequestRedirect | undefined;
  url: string;
  /** `init[FETCH_DEADLINE_MS]`: reject with a TimeoutError and tear the request down after this many ms. */
  deadlineMs: number | undefined;
}

/** Settles the fetch promise once: later events (a late error, the abort listener) are ignored. */
interface Settle {
  settled(): boolean;
  fail(error: unknown): void;
  succeed(makeResponse: () => Response): void;
}

/** Sends the request (once more on a fresh socket for a reset idempotent one) and resolves with the whole answer. */
export function exchange(x: Exchange): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    let req: ClientRequest | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      x.signal?.removeEventListener('abort', onAbort);
      if (timer !== undefined) clearTimeout(timer);
      fn();
    };
    const onAbort = () => {
      settle(() => reject(x.signal!.reason));
      req?.destroy();
    };
    x.signal?.addEventListener('abort', onAbort, { once: true });
    // The reason AbortSignal.timeout would give, so callers cannot tell the two deadlines apart.
    if (x.deadlineMs !== undefined)
      timer = setTimeout(() => {
        settle(() => reject(new DOMException('The operation was aborted due to timeout', 'TimeoutError')));
        req?.destroy();
      }, x.deadlineMs);
    const s: Settle = {
      settled: () => settled,
      fail: (error) => settle(() => reject(error)),
      succeed: (makeResponse) =>
        settle(() => {
          try {
            resolve(makeResponse());
          } catch (e) {
            reject(e instanceof TypeError ? e : failed(e));
          }
        }),
    };

    const attempt = (retry: boolean) => {
      let answered = false;
      const r = x.request(x.target, (res: IncomingMessage) => {
        answered = true;
        collectBody(res, x, s, () => r.destroy());
      });
      req = r;
      r.on('error', (e: NodeJS.ErrnoException) => {
        if (settled) return;
        if (!retry && !answered && r.reusedSocket && RESET_CODES.has(e.code ?? '') && RETRYABLE_METHODS.has(x.method))
          return attempt(true);
        s.fail(failed(e));
      });
      r.end(x.body ?? undefined);
    };
    attempt(false);
  });
}

/** Reads the body (at most `maxBodyBytes`), decompresses it and settles with the Response. */
function collectBody(res: IncomingMessage, x: Exchange, s: Settle, destroyRequest: () => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (c: Buffer) => {
    size += c.length;
    if (size > x.maxBodyBytes) {
      s.fail(failed(new Error(`response body over ${x.maxBodyBytes} bytes`)));
      destroyRequest();
    } else chunks.push(c);
  });
  res.on('error', (e) => s.fail(failed(e)));
  res.on('aborted', () => s.fail(failed(new Error('response aborted'))));
  res.on('end', () => {
    if (s.settled()) return;
    const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
    const encoding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
    const decode = raw.length > 0 && x.method !== 'HEAD' ? DECODERS[encoding] : undefined;
    const finish = (bytes: Buffer) => s.succeed(() => toResponse(res, bytes, x.method, x.redirect, x.url));
    if (!decode) return finish(raw);
    decode(raw, (err, out) => (err ? s.fail(failed(err)) : finish(out)));
  });
}

function toResponse(
  res: IncomingMessage,
  bytes: Buffer,
  method: string,
  redirect: RequestRedirect | undefined,
  url: string,
): Response {
  const status = res.statusCode ?? 0;
  if (redirect === 'error' && status >= 300 && status < 400 && res.headers.location !== undefined)
    throw new TypeError('fetch failed: redirect mode is "error"');
  const nullBody = NULL_BODY_STATUS.has(status) || method === 'HEAD';
  return new BufferedResponse(
    nullBody ? null : bytes,
    { status, statusText: res.statusMessage ?? '' },
    res.rawHeaders,
    url,
  );
}
