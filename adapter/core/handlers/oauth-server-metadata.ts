/**
 * The provider's discovery document (from the API's public `GET /oauth2/metadata`) and JWKS, served
 * under the mount and, for the RFC 8414 §3.1 path-inserted form, at the root. Cached like the
 * association files (adapter/core/well-known.ts): 300 s, the last good copy while the API is down.
 */
import type { AdapterCore } from '../core.js';
import { WELL_KNOWN_CACHE_MS, WELL_KNOWN_MAX_AGE_SECONDS, WELL_KNOWN_RETRY_MS } from '../well-known.js';
import type { HandlerResult } from '../result.js';
import { CORS_HEADERS } from './oauth-server-forward.js';
import { isObject } from './forward.js';

/** A good document, or the API's own failure (not cached: the provider may be switched on any moment). */
type Loaded = { ok: true; doc: Record<string, unknown> } | { ok: false; result: HandlerResult };

interface Source {
  get(): Promise<Loaded>;
}

const sources = new WeakMap<AdapterCore, Map<string, Source>>();

const jsonAnswer = (status: number, body: unknown, extra: Record<string, string> = {}): HandlerResult => ({
  status,
  rawBody: JSON.stringify(body),
  headers: { 'content-type': 'application/json', ...CORS_HEADERS, ...extra },
});

function sourceFor(core: AdapterCore, path: string): Source {
  let byPath = sources.get(core);
  if (!byPath) sources.set(core, (byPath = new Map()));
  let source = byPath.get(path);
  if (source) return source;
  let cached: Record<string, unknown> | null = null;
  let fetchedAtMs = -Infinity;
  let inflight: Promise<Loaded> | null = null;
  const load = async (): Promise<Loaded> => {
    const res = await core.call({ method: 'GET', path, client: {} });
    if (res.ok && res.status === 200 && isObject(res.body)) {
      cached = res.body;
      fetchedAtMs = core.now();
      return { ok: true, doc: cached };
    }
    if (cached) {
      fetchedAtMs = core.now() - WELL_KNOWN_CACHE_MS + WELL_KNOWN_RETRY_MS;
      return { ok: true, doc: cached };
    }
    if (!res.ok)
      return {
        ok: false,
        result: jsonAnswer(502, { error: 'upstream_unavailable', message: 'Auth server unreachable' }),
      };
    if (res.status >= 400 && res.status < 500 && isObject(res.body))
      return { ok: false, result: jsonAnswer(res.status, res.body, { 'cache-control': 'no-store' }) };
    return {
      ok: false,
      result: jsonAnswer(502, { error: 'upstream_error', message: 'Unexpected response from auth server' }),
    };
  };
  source = {
    get() {
      if (cached && core.now() - fetchedAtMs < WELL_KNOWN_CACHE_MS) return Promise.resolve({ ok: true, doc: cached });
      inflight ??= load().finally(() => {
        inflight = null;
      });
      return inflight;
    },
  };
  byPath.set(path, source);
  return source;
}

export const METADATA_PATH = '/oauth2/metadata';
export const JWKS_PATH = '/.well-known/jwks.json';

/** The document at `path` of the API, public and cacheable, with CORS for browser clients. */
export async function cachedDocument(core: AdapterCore, path: string): Promise<HandlerResult> {
  const loaded = await sourceFor(core, path).get();
  if (!loaded.ok) return loaded.result;
  return jsonAnswer(200, loaded.doc, { 'cache-control': `public, max-age=${WELL_KNOWN_MAX_AGE_SECONDS}` });
}

/** The issuer's path (`/auth` for `https://app.example/auth`), from the cached metadata; null without one. */
export async function issuerPath(core: AdapterCore): Promise<string | null> {
  const loaded = await sourceFor(core, METADATA_PATH).get();
  if (!loaded.ok || typeof loaded.doc['issuer'] !== 'string') return null;
  try {
    return new URL(loaded.doc['issuer']).pathname.replace(/\/+$/, '');
  } catch {
    return null;
  }
}
