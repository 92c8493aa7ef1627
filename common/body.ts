/**
 * Request bodies on Node without a WHATWG stream, for the API's
 * body middleware and the Hono adapter alike. Under
 * @hono/node-server, touching `c.req.raw.body` builds a full `Request` and a
 * `Readable.toWeb` stream for every POST (~0.3 ms of CPU, more than the rest
 * of the body handling); the Node request itself is `c.env.incoming`, and
 * reading it with `data`/`end` listeners gives the same bytes. Other runtimes
 * (Workers, Bun, Deno, `app.request`) have no `incoming` and keep the stream path.
 */

/** The part of Node's `IncomingMessage` this reader uses (no Node types: the API is runtime-neutral). */
export interface NodeIncoming {
  on(event: string, listener: (arg: never) => void): unknown;
  off(event: string, listener: (arg: never) => void): unknown;
  pause(): unknown;
  listenerCount(event: string): number;
  readableDidRead?: boolean;
  readableEnded?: boolean;
  complete?: boolean;
}

/**
 * The Node request of a @hono/node-server context, or null: another runtime,
 * or a body that something already started reading (then the stream path
 * must be used, since it owns the bytes).
 */
export function nodeIncoming(env: unknown): NodeIncoming | null {
  const incoming = (env as { incoming?: Partial<NodeIncoming> } | undefined)?.incoming;
  if (
    !incoming ||
    typeof incoming.on !== 'function' ||
    typeof incoming.off !== 'function' ||
    typeof incoming.pause !== 'function' ||
    typeof incoming.listenerCount !== 'function'
  )
    return null;
  // Already read, ended, or piped into a WHATWG stream (`c.req.raw.body` touched): that reader owns the bytes.
  if (incoming.readableDidRead !== false || incoming.readableEnded || incoming.listenerCount('data') > 0) return null;
  return incoming as NodeIncoming;
}

/**
 * Reads the whole body, or stops at `limit` bytes and resolves `'too_large'`
 * (the rest is left unread; @hono/node-server drains it after the answer, as
 * for any unread body). Rejects if the connection closes before the end.
 */
export function readNodeBody(incoming: NodeIncoming, limit: number): Promise<Uint8Array | 'too_large'> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const detach = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
    };
    const onData = (chunk: Uint8Array) => {
      size += chunk.byteLength;
      if (size > limit) {
        detach();
        incoming.pause();
        resolve('too_large');
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      detach();
      if (chunks.length === 1) return resolve(chunks[0]!);
      const out = new Uint8Array(size);
      let offset = 0;
      for (const ch of chunks) {
        out.set(ch, offset);
        offset += ch.byteLength;
      }
      resolve(out);
    };
    const onError = (err: unknown) => {
      detach();
      reject(err);
    };
    const onClose = () => {
      detach();
      reject(new Error('request closed before its body ended'));
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}

/**
 * Reads a WHATWG body stream, or stops at `limit` bytes, cancels the stream
 * and resolves `'too_large'`.
 */
export async function readStreamLimited(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<Uint8Array | 'too_large'> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return 'too_large';
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const ch of chunks) {
    bytes.set(ch, offset);
    offset += ch.byteLength;
  }
  return bytes;
}
