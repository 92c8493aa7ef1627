/**
 * Bearer transport token handling (contract §4.7): tokens live in memory and
 * in a pluggable async storage as ONE record, so a rotation replaces the
 * refresh token atomically (one `set`). Refresh is single-flight: any number
 * of concurrent calls share one `POST /refresh`. Memory is authoritative: a
 * storage failure is reported as `storage_failed` and never drops the tokens
 * in memory; the next call retries writing them.
 */
import { invalidResponse, isObject, SvcError } from './errors.js';
import type { SessionControl, SessionUser, SignedOutReason } from './session.js';

/**
 * Async key-value storage for the bearer tokens (Keychain/Keystore, Expo
 * SecureStore, IndexedDB…). Every method may reject; the client reports it.
 *
 * @example
 * import * as SecureStore from 'expo-secure-store';
 * const storage: SvcStorage = {
 *   get: (k) => SecureStore.getItemAsync(k),
 *   set: (k, v) => SecureStore.setItemAsync(k, v),
 *   delete: (k) => SecureStore.deleteItemAsync(k),
 * };
 */
export interface SvcStorage {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** A storage that lives as long as the process (the default; tokens are lost on restart). */
export function memoryStorage(): SvcStorage {
  const map = new Map<string, string>();
  return {
    get: async (k) => map.get(k) ?? null,
    set: async (k, v) => void map.set(k, v),
    delete: async (k) => void map.delete(k),
  };
}

/** The stored record. */
export interface StoredTokens {
  accessToken: string;
  accessExpiresAtMs: number;
  /** Lifetime of the access token when issued: the refresh leeway never exceeds half of it. */
  accessTtlMs?: number;
  refreshToken: string;
  refreshExpiresAtMs: number;
  sessionId: string;
  user: SessionUser;
  organizationId: string | null;
}

const storageFailed = (e: unknown, what: string) =>
  new SvcError('storage_failed', 0, `Token storage failed to ${what}: ${(e as Error)?.message ?? String(e)}`, {
    cause: e,
  });

const isPositive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;

/** Tokens from a verified session envelope; `invalid_response` when a field is missing. */
export function tokensFrom(body: Record<string, unknown>, nowMs: number): StoredTokens {
  const { token, refreshToken, ttl, refreshTtl, sub, sessionId } = body;
  if (typeof token !== 'string' || typeof refreshToken !== 'string' || !token || !refreshToken)
    throw invalidResponse(200, 'session without tokens');
  if (!isPositive(ttl) || !isPositive(refreshTtl) || typeof sub !== 'string' || typeof sessionId !== 'string')
    throw invalidResponse(200, 'session without ttl, sub or sessionId');
  return {
    accessToken: token,
    accessExpiresAtMs: nowMs + ttl * 1000,
    accessTtlMs: ttl * 1000,
    refreshToken,
    refreshExpiresAtMs: nowMs + refreshTtl * 1000,
    sessionId,
    user: userFrom(body, sub),
    organizationId: typeof body['organizationId'] === 'string' ? body['organizationId'] : null,
  };
}

export const userFrom = (body: Record<string, unknown>, id: string): SessionUser => ({
  id,
  email: typeof body['email'] === 'string' ? body['email'] : null,
  phone: typeof body['phone'] === 'string' ? body['phone'] : null,
  roles: Array.isArray(body['roles']) ? body['roles'].filter((r): r is string => typeof r === 'string') : [],
});

const SIGN_OUT_CODES = new Set(['refresh_token_reused', 'invalid_refresh_token', 'unauthorized']);

export interface BearerAuth {
  /** Loads the stored record once (single-flight); null when signed out. */
  load(): Promise<StoredTokens | null>;
  current(): StoredTokens | null;
  /** An access token valid for at least the leeway, refreshing first when needed. */
  accessToken(): Promise<string>;
  /** After a 401 with `used`: refreshes unless another call already did; returns the new token. */
  afterUnauthorized(used: string): Promise<string>;
  /** Single-flight refresh. */
  refresh(): Promise<StoredTokens>;
  /** Stores a new record (sign-in, organization switch); memory first. */
  replace(next: StoredTokens): Promise<void>;
  /** Forgets the tokens (memory first) and emits signed-out. */
  clear(reason: SignedOutReason): Promise<void>;
}

export interface BearerAuthDeps {
  storage: SvcStorage;
  key: string;
  now: () => number;
  leewayMs: number;
  session: SessionControl;
  /** `POST /refresh` with the refresh token as bearer; resolves with the 200 body. */
  callRefresh(refreshToken: string): Promise<Record<string, unknown>>;
}

export function createBearerAuth(d: BearerAuthDeps): BearerAuth {
  const store = createTokenStore(d);
  let inflight: Promise<StoredTokens> | null = null;

  async function runRefresh(): Promise<StoredTokens> {
    const cur = store.current();
    if (!cur) throw new SvcError('signed_out', 0, 'Not signed in');
    let body: Record<string, unknown>;
    try {
      body = await d.callRefresh(cur.refreshToken);
    } catch (e) {
      if (e instanceof SvcError && e.status === 401 && SIGN_OUT_CODES.has(e.code) && store.current() === cur) {
        // the refresh answer is the error to report; dirty retries the delete
        await store.clear(e.code as SignedOutReason).catch(() => {});
      }
      throw e;
    }
    if (store.current() !== cur) throw new SvcError('signed_out', 0, 'Signed out during refresh');
    await store.replace(tokensFrom(body, d.now()));
    return store.current()!;
  }

  function refresh(): Promise<StoredTokens> {
    inflight ??= runRefresh().finally(() => (inflight = null));
    return inflight;
  }

  return {
    ...store,
    refresh,
    async accessToken() {
      const t = await store.load();
      if (!t) throw new SvcError('signed_out', 0, 'Not signed in');
      await store.flush();
      // A short-lived token (ttl ≤ 2 × leeway) is refreshed at half its life, not on every call.
      const leewayMs = Math.min(d.leewayMs, (t.accessTtlMs ?? Infinity) / 2);
      if (t.accessExpiresAtMs - d.now() > leewayMs) return t.accessToken;
      return (await refresh()).accessToken;
    },
    async afterUnauthorized(used) {
      if (inflight) return (await inflight).accessToken;
      const tokens = store.current();
      if (tokens && tokens.accessToken !== used) return tokens.accessToken;
      return (await refresh()).accessToken;
    },
  };
}

/** The token record in memory and in storage: memory is authoritative; a failed write is retried by the next call. */
type TokenStore = Pick<BearerAuth, 'load' | 'current' | 'replace' | 'clear'> & {
  /** Writes again what a failed write left out of storage. */
  flush(): Promise<void>;
};

function createTokenStore(d: BearerAuthDeps): TokenStore {
  let tokens: StoredTokens | null = null;
  let loaded = false;
  let loading: Promise<StoredTokens | null> | null = null;
  /** Storage does not hold what memory holds (a write failed); the next call writes again. */
  let dirty = false;

  async function persist(): Promise<void> {
    const snapshot = tokens;
    try {
      if (snapshot) await d.storage.set(d.key, JSON.stringify(snapshot));
      else await d.storage.delete(d.key);
      if (tokens === snapshot) dirty = false;
    } catch (e) {
      dirty = true;
      throw storageFailed(e, snapshot ? 'save the tokens' : 'delete the tokens');
    }
  }

  async function readStorage(): Promise<StoredTokens | null> {
    tokens = await readRecord(d); // a failure leaves it not loaded: the next call reads again, nothing is deleted
    loaded = true;
    if (tokens) d.session.signedIn(tokens.user, tokens.organizationId);
    else d.session.signedOut('initial');
    return tokens;
  }

  return {
    async load() {
      if (loaded) return tokens;
      loading ??= readStorage().finally(() => (loading = null));
      return loading;
    },
    current: () => tokens,
    async replace(next) {
      tokens = next;
      loaded = true;
      d.session.signedIn(next.user, next.organizationId);
      await persist();
    },
    async clear(reason) {
      tokens = null;
      loaded = true;
      d.session.signedOut(reason);
      await persist();
    },
    async flush() {
      if (dirty) await persist();
    },
  };
}

async function readRecord(d: BearerAuthDeps): Promise<StoredTokens | null> {
  let raw: string | null;
  try {
    raw = await d.storage.get(d.key);
  } catch (e) {
    throw storageFailed(e, 'read the tokens');
  }
  return parseRecord(raw, d.now());
}

/** The stored record, or null for a signed-out state: none, unreadable, or its refresh token expired. */
function parseRecord(raw: string | null, nowMs: number): StoredTokens | null {
  let parsed: unknown = null;
  try {
    parsed = raw ? JSON.parse(raw) : null;
  } catch {
    parsed = null; // an unreadable record is a signed-out state; it is overwritten by the next sign-in
  }
  const ok =
    isObject(parsed) &&
    typeof parsed['refreshToken'] === 'string' &&
    typeof parsed['accessToken'] === 'string' &&
    isObject(parsed['user']);
  const record = ok ? (parsed as unknown as StoredTokens) : null;
  // A record whose refresh token has expired is a signed-out state (kept in storage: nothing is deleted on read).
  return record && !(record.refreshExpiresAtMs <= nowMs) ? record : null;
}
