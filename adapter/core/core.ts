/**
 * The per-options state of an adapter: resolved options, the cookie codec,
 * the JWKS verifier, service tokens and the refresh dedup. Built once per
 * options object (a WeakMap), so `svcAdapter(opts)`, `svcTotpBridge(opts)` and
 * `getUser(c, opts)` given the same object share caches.
 */
import { createCookieCodec, type CookieCodec } from './cookies.js';
import { createJwksVerifier, type JwksVerifier } from './jwks.js';
import { resolveOptions, type ResolvedOptions, type SvcAdapterOptions } from './options.js';
import { processRefreshDedup, type RefreshDedup } from './refresh.js';
import { createServiceTokens, type AdapterSubject, type ServiceTokens } from './service-token.js';
import { callUpstream, type ClientInfo, type UpstreamResponse } from './upstream.js';

export interface AdapterCore {
  opts: ResolvedOptions;
  codec: CookieCodec;
  jwks: JwksVerifier;
  tokens: ServiceTokens;
  dedup: RefreshDedup;
  now(): number;
  /** One upstream call with the right service token and delivery header (contract §5.2). */
  call(req: {
    method: string;
    path: string;
    query?: Record<string, unknown>;
    authorization?: string | null;
    body?: unknown;
    client: ClientInfo;
    delivery?: boolean;
    idempotencyKey?: string;
  }): Promise<UpstreamResponse>;
}

const cores = new WeakMap<object, Map<AdapterSubject, AdapterCore>>();

/**
 * Resolves `opts` (throwing construction errors with `label`) and returns the
 * shared core for that options object.
 *
 * @example
 * const core = createAdapterCore(opts, 'svc-hono-adapter');
 */
export function createAdapterCore(
  input: SvcAdapterOptions,
  subject: AdapterSubject,
  label = 'svcAdapter',
): AdapterCore {
  const existing = cores.get(input)?.get(subject);
  if (existing) return existing;
  const opts = resolveOptions(input, label);
  const tokens = createServiceTokens(opts.serviceSecret, opts.jwksKid, subject);
  const core: AdapterCore = {
    opts,
    codec: createCookieCodec(opts.cookieSecret, opts.issuer),
    jwks: createJwksVerifier({
      authServerUrl: opts.authServerUrl,
      audience: opts.audience,
      fetch: opts.fetch,
      now: opts.now,
    }),
    tokens,
    dedup: processRefreshDedup,
    now: opts.now,
    call(req) {
      const nowMs = opts.now();
      const delivery = Boolean(req.delivery && opts.messaging);
      return callUpstream(opts.fetch, opts.authServerUrl, {
        method: req.method,
        path: req.path,
        query: req.query,
        authorization: req.authorization,
        serviceToken: delivery ? tokens.delivery(nowMs) : tokens.proxy(nowMs),
        delivery,
        body: req.body,
        client: req.client,
        ...(req.idempotencyKey ? { idempotencyKey: req.idempotencyKey } : {}),
      });
    },
  };
  let bySubject = cores.get(input);
  if (!bySubject) cores.set(input, (bySubject = new Map()));
  bySubject.set(subject, core);
  return core;
}
