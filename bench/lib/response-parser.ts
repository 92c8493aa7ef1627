/**
 * Incremental HTTP/1.1 response framing for the load generator (loadgen.ts):
 * status line, `content-length`, `transfer-encoding: chunked`, responses split
 * over several `data` events or several in one. Per answer it does one
 * `indexOf` for the end of the head, one latin1 slice of the head and two
 * `indexOf`s on it; bodies are skipped, never copied.
 */
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
          if (!/^[0-9a-fA-F]{1,8}$/.test(hex))
            throw new Error(`bad chunk size line: ${JSON.stringify(line.slice(0, 40))}`);
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
    if (head.charCodeAt(8) !== 32 || !Number.isInteger(status) || status < 100)
      throw new Error(`bad status line: ${JSON.stringify(head.slice(0, 40))}`);
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
