/**
 * A `FetchLike` on `node:http` / `node:https` with a keep-alive agent, for the
 * adapter's calls to the auth API on Node (`fetch` option). Node's global
 * `fetch` (undici) costs several times more CPU per call than `node:http`;
 * on the app → API hop that cost is most of the adapter's (docs/performance.md).
 *
 * Node only: this file imports `node:` modules and is reached through
 * `svc-auth/node` and the Node entries (`adapter/<name>/node.ts`,
 * `svc-auth/express`, which make it the default), never from the neutral
 * core or Hono entries.
 */
import { Agent as HttpAgent, request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { FETCH_DEADLINE_MS, type DeadlineFetch, type DeadlineInit } from '../core/fetch-deadline.js';
import { exchange } from './exchange.js';

export interface NodeUpstreamFetchOptions {
  /** Most sockets open at once per origin (default 64); more concurrent calls queue in the agent. */
  maxSockets?: number;
  /** Most idle keep-alive sockets kept per origin (default `maxSockets`). */
  maxFreeSockets?: number;
  /**
   * An idle keep-alive socket is closed after this many ms (default 4000, under
   * Node's 5 s server `keepAliveTimeout`); a server's `Keep-Alive: timeout=n`
   * hint shortens it to n − 1 s.
   */
  idleTimeoutMs?: number;
  /** A response body larger than this rejects (default 8 MiB). */
  maxBodyBytes?: number;
}

/**
 * The `FetchLike`, plus `close()` to drop its idle sockets (tests, shutdown).
 * It takes the adapter's deadline as a number (`FETCH_DEADLINE_MS`), not as a signal.
 */
export interface NodeUpstreamFetch extends DeadlineFetch {
  close(): void;
}

const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

function toHeaders(init: HeadersInit | undefined): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  if (!init) return out;
  const add = (k: string, v: string) => {
    const key = k.toLowerCase();
    const prev = out[key];
    out[key] = prev === undefined ? v : `${String(prev)}, ${v}`;
  };
  if (init instanceof Headers) init.forEach((v, k) => add(k, v));
  else if (Array.isArray(init)) for (const [k, v] of init) add(k!, v!);
  else for (const [k, v] of Object.entries(init)) add(k, v);
  return out;
}

/** The body as bytes, or `null` for none; `undefined` when this transport does not take that body type. */
function toBytes(body: RequestInit['body'], headers: OutgoingHttpHeaders): Buffer | null | undefined {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof URLSearchParams) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded;charset=UTF-8';
    return Buffer.from(body.toString(), 'utf8');
  }
  return undefined; // Blob, FormData, ReadableStream: left to the global fetch
}

/**
 * A `fetch` for the adapter's upstream and JWKS calls on Node: `node:http`
 * (or `node:https`) with a keep-alive agent per protocol. It returns a real
 * Web `Response` (status, status text, every header in order — several
 * `Set-Cookie` lines stay separate, see `headers.getSetCookie()` — and the
 * body, decompressed if the server sent gzip, deflate or br) and honours
 * `init.signal`: an abort or `AbortSignal.timeout` rejects with the signal's
 * reason and destroys the request. A refused or reset connection rejects with
 * `TypeError('fetch failed')` like the global `fetch`, which the adapter
 * answers as 502 `upstream_unavailable`.
 *
 * Differences from the global `fetch`, none of which the adapter relies on:
 * the whole body is read before the promise resolves (auth API answers are
 * small; an abort during the body rejects the call); redirects are never
 * followed (a 3xx is returned as it is, like `redirect: 'manual'`;
 * `redirect: 'error'` rejects on one); no default `accept`/`user-agent`
 * headers are added; a request with a Blob, FormData or stream body, or a
 * URL that is not http(s), is passed to `globalThis.fetch`. A GET, HEAD or
 * OPTIONS that finds its kept-alive socket closed by the server is sent once
 * more on a new socket; other methods are never retried.
 *
 * @example
 * import { Hono } from 'hono';
 * import { svcAdapter, requireAuth } from 'svc-auth/hono';
 * import { nodeUpstreamFetch } from 'svc-auth/node';
 *
 * const auth = {
 *   authServerUrl: 'http://127.0.0.1:8787',
 *   audience: 'http://127.0.0.1:8787',
 *   issuer: 'http://localhost:3000',
 *   cookieSecret: process.env.COOKIE_SECRET!,
 *   serviceSecret: process.env.API_SERVICE_TOKEN!,
 *   // Already the default on Node; pass one only to tune it. One per process: its agent keeps the sockets open.
 *   fetch: nodeUpstreamFetch({ maxSockets: 128 }),
 * };
 * const app = new Hono();
 * app.route('/auth', svcAdapter(auth));
 */
export function nodeUpstreamFetch(options: NodeUpstreamFetchOptions = {}): NodeUpstreamFetch {
  const maxBodyBytes = options.maxBodyBytes ?? 8 * 1024 * 1024;
  const agentOptions = keepAliveAgentOptions(options);
  const httpAgent = new HttpAgent(agentOptions);
  let httpsAgent: HttpsAgent | undefined;

  const fetchFn = (input: string, init: DeadlineInit = {}): Promise<Response> => {
    let prepared: PreparedRequest | 'global';
    try {
      prepared = prepareRequest(input, init);
    } catch (e) {
      return Promise.reject(e);
    }
    if (prepared === 'global') return globalThis.fetch(input, init);
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const { url, https, method, headers, body } = prepared;
    const target = {
      protocol: url.protocol,
      hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      method,
      headers,
      agent: https ? (httpsAgent ??= new HttpsAgent(agentOptions)) : httpAgent,
    };
    const request = https ? httpsRequest : httpRequest;
    return exchange({
      request,
      target,
      body,
      method,
      signal,
      maxBodyBytes,
      redirect: init.redirect,
      url: String(input),
      deadlineMs: init[FETCH_DEADLINE_MS],
    });
  };

  return Object.assign(fetchFn, {
    [FETCH_DEADLINE_MS]: true as const,
    close() {
      httpAgent.destroy();
      httpsAgent?.destroy();
    },
  });
}

function keepAliveAgentOptions(options: NodeUpstreamFetchOptions) {
  const maxSockets = options.maxSockets ?? 64;
  return {
    keepAlive: true,
    maxSockets,
    maxFreeSockets: options.maxFreeSockets ?? maxSockets,
    // Node's agent applies `timeout` to idle sockets and lowers it to a server's Keep-Alive hint.
    timeout: options.idleTimeoutMs ?? 4000,
    scheduling: 'lifo' as const,
  };
}

interface PreparedRequest {
  url: URL;
  https: boolean;
  method: string;
  headers: OutgoingHttpHeaders;
  body: Buffer | null;
}

/**
 * The request as `node:http` takes it, or `'global'` when this transport does
 * not take it (not http(s), a Blob/FormData/stream body). Throws the TypeError
 * the global `fetch` rejects with for a request it cannot construct.
 */
function prepareRequest(input: string, init: RequestInit): PreparedRequest | 'global' {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch (e) {
    throw new TypeError(`Invalid URL: ${String(input)}`, { cause: e });
  }
  const https = url.protocol === 'https:';
  if (!https && url.protocol !== 'http:') return 'global';
  if (url.username || url.password)
    throw new TypeError('Request cannot be constructed from a URL that includes credentials');
  const rawMethod = init.method ?? 'GET';
  const method = NORMALIZED_METHODS.has(rawMethod.toUpperCase()) ? rawMethod.toUpperCase() : rawMethod;
  const headers = toHeaders(init.headers);
  const body = toBytes(init.body, headers);
  if (body === undefined) return 'global';
  if (body !== null && (method === 'GET' || method === 'HEAD'))
    throw new TypeError('Request with GET/HEAD method cannot have body.');
  if (body !== null) headers['content-length'] = body.length;
  else if (method === 'POST' || method === 'PUT' || method === 'PATCH') headers['content-length'] = 0;
  return { url, https, method, headers, body };
}
