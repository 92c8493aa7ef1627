/**
 * The association files of the app's own domain, built from the
 * API's public `GET /system-config/associations` and cached like the JWKS
 * (300 s; the last good answer is served while the API is unreachable):
 *
 * - `/.well-known/assetlinks.json`: Digital Asset Links, one statement per
 *   Android app with `handle_all_urls` and `get_login_creds` (Google's
 *   Credential Manager example).
 * - `/.well-known/apple-app-site-association`: `webcredentials.apps` for
 *   passkeys and `applinks.details` (`appIDs` + `components`) for the apps
 *   that list universal-link paths (Apple's "Supporting associated domains").
 * - `/.well-known/webauthn`: WebAuthn L3 §5.11 related origins, `{origins}`.
 */
import type { AdapterCore } from './core.js';
import { isObject } from './handlers/forward.js';
import { failure, type HandlerResult } from './result.js';

export const WELL_KNOWN_CACHE_MS = 300_000;
export const WELL_KNOWN_MAX_AGE_SECONDS = 300;
/** While the API is down, a stale copy is served and the API is asked again at most this often. */
export const WELL_KNOWN_RETRY_MS = 30_000;

/** The API's public association config (`GET /system-config/associations`). */
export interface PublicAssociations {
  webOrigins: string[];
  android: { packageName: string; sha256CertFingerprints: string[] }[];
  apple: { appId: string; applinksPaths: string[] }[];
}

export const ASSET_LINK_RELATIONS = [
  'delegate_permission/common.handle_all_urls',
  'delegate_permission/common.get_login_creds',
] as const;

/** Digital Asset Links statements, one per Android app. */
export function assetLinks(cfg: PublicAssociations) {
  return cfg.android.map((app) => ({
    relation: [...ASSET_LINK_RELATIONS],
    target: {
      namespace: 'android_app',
      package_name: app.packageName,
      sha256_cert_fingerprints: app.sha256CertFingerprints,
    },
  }));
}

/** The apple-app-site-association document; `applinks` only when an app lists paths. */
export function appleAppSiteAssociation(cfg: PublicAssociations) {
  const linked = cfg.apple.filter((a) => a.applinksPaths.length > 0);
  const doc: Record<string, unknown> = { webcredentials: { apps: cfg.apple.map((a) => a.appId) } };
  if (linked.length)
    doc['applinks'] = {
      details: linked.map((a) => ({ appIDs: [a.appId], components: a.applinksPaths.map((p) => ({ '/': p })) })),
    };
  return doc;
}

/** WebAuthn related origins: the web origins the API accepts for its RP ID. */
export const webauthnRelatedOrigins = (cfg: PublicAssociations) => ({ origins: cfg.webOrigins });

export interface WellKnownRoute {
  path: string;
  build(cfg: PublicAssociations): unknown;
}

export const WELL_KNOWN_ROUTES: readonly WellKnownRoute[] = [
  { path: '/.well-known/assetlinks.json', build: assetLinks },
  { path: '/.well-known/apple-app-site-association', build: appleAppSiteAssociation },
  { path: '/.well-known/webauthn', build: webauthnRelatedOrigins },
];

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** Shape check of the upstream answer: a wrong shape must not become a published file. */
function parseAssociations(body: unknown): PublicAssociations | null {
  if (
    !isObject(body) ||
    !strings(body['webOrigins']) ||
    !Array.isArray(body['android']) ||
    !Array.isArray(body['apple'])
  )
    return null;
  const android = body['android'].every(
    (a) => isObject(a) && typeof a['packageName'] === 'string' && strings(a['sha256CertFingerprints']),
  );
  const apple = body['apple'].every(
    (a) => isObject(a) && typeof a['appId'] === 'string' && strings(a['applinksPaths']),
  );
  return android && apple ? (body as unknown as PublicAssociations) : null;
}

/** The config, or why there is none: the API could not be reached, or answered something else. */
type Loaded = PublicAssociations | 'unreachable' | 'bad_answer';

interface Source {
  get(): Promise<Loaded>;
}

const sources = new WeakMap<AdapterCore, Source>();

/** One cache per adapter core; concurrent misses share one upstream call. */
function sourceFor(core: AdapterCore): Source {
  let source = sources.get(core);
  if (source) return source;
  let cached: PublicAssociations | null = null;
  let fetchedAtMs = -Infinity;
  let inflight: Promise<Loaded> | null = null;
  const load = async (): Promise<Loaded> => {
    const res = await core.call({ method: 'GET', path: '/system-config/associations', client: {} });
    const parsed = res.ok && res.status === 200 ? parseAssociations(res.body) : null;
    if (parsed) {
      cached = parsed;
      fetchedAtMs = core.now();
    } else if (cached) fetchedAtMs = core.now() - WELL_KNOWN_CACHE_MS + WELL_KNOWN_RETRY_MS;
    return parsed ?? cached ?? (res.ok ? 'bad_answer' : 'unreachable');
  };
  source = {
    get() {
      if (cached && core.now() - fetchedAtMs < WELL_KNOWN_CACHE_MS) return Promise.resolve(cached);
      inflight ??= load().finally(() => {
        inflight = null;
      });
      return inflight;
    },
  };
  sources.set(core, source);
  return source;
}

/**
 * Answers one well-known route: the document as `application/json`, public
 * and cacheable. Before a first good answer: 502 `upstream_unavailable` (API
 * unreachable) or 502 `upstream_error` (any other answer).
 *
 * @example
 * const plan = await handleWellKnownRequest(core, WELL_KNOWN_ROUTES[0]);
 */
export async function handleWellKnownRequest(core: AdapterCore, route: WellKnownRoute): Promise<HandlerResult> {
  const cfg = await sourceFor(core).get();
  if (cfg === 'unreachable') return failure(502, 'upstream_unavailable');
  if (cfg === 'bad_answer') return failure(502, 'upstream_error');
  return {
    status: 200,
    body: route.build(cfg),
    headers: { 'cache-control': `public, max-age=${WELL_KNOWN_MAX_AGE_SECONDS}`, 'content-type': 'application/json' },
  };
}
