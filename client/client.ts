/** `createSvcClient`: the runtime-neutral client (Web `fetch` only, no DOM). */
import { ROUTES, TOTP_BRIDGE_ROUTES } from '../common/route-table.js';
import { invalidResponse, isObject, SvcError } from './errors.js';
import { exchange, fillPath, queryString, type FetchLike } from './http.js';
import { FIELD_RULES, ROUTE_KEYS, type RouteMethods, type RouteName } from './routes.js';
import { createRefreshAttempts } from './refresh-attempt.js';
import { createSessionStore, type SessionState, type SessionStore } from './session.js';
import { checkInput } from './validate.js';
import type { MagicLinkVerified } from './wire.js';
import { createBearerAuth, memoryStorage, tokensFrom, userFrom, type StoredTokens, type SvcStorage } from './tokens.js';

export interface SvcClientOptions {
  /** The adapter's mount URL, e.g. `https://app.example.com/auth` (or `/auth` in a browser page). */
  baseUrl: string;
  /** `cookie` (browsers, default): the adapter keeps the tokens in cookies. `bearer` (native apps): the client keeps them. */
  transport?: 'cookie' | 'bearer';
  /** Bearer transport: where tokens persist (default: memory only). */
  storage?: SvcStorage;
  /** Storage key of the token record (default `svc-auth.tokens`). */
  storageKey?: string;
  /** Default `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Bearer transport: refresh when the access token expires within this many seconds (default 30). */
  refreshLeewaySeconds?: number;
  /** Clock in epoch ms (default `Date.now`); tests inject a manual clock. */
  now?: () => number;
}

/** The client: one typed method per adapter route, plus session state. */
export type SvcClient = RouteMethods & {
  readonly transport: 'cookie' | 'bearer';
  /** Signed-in user, roles, active organization; subscribe to changes. */
  readonly session: SessionStore;
  /** Reads the stored session (bearer) or asks `me` (cookie) and returns the state. */
  restore(): Promise<SessionState>;
  /**
   * Completes a number_match magic link with the number the user picked
   * (`verifyMagicLink({ token, number })`). One guess: a wrong number cancels the link.
   */
  confirmMagicLink(token: string, number: number): Promise<MagicLinkVerified>;
};

type Kind = { cred: string; response: string };

function routeIndex(): Map<string, Kind> {
  const index = new Map<string, Kind>();
  for (const r of ROUTES) index.set(`${r.method} ${r.path}`, r);
  for (const r of TOTP_BRIDGE_ROUTES) index.set(`${r.method} /totp${r.path}`, { cred: r.cred, response: r.response === 'session' ? 'session' : 'bridge' });
  return index;
}

const without = (body: Record<string, unknown> | null, ...keys: string[]) => {
  if (!body) return body;
  const out = { ...body };
  for (const k of keys) delete out[k];
  return out;
};

/**
 * Creates a client for an svc adapter.
 *
 * @example
 * // browser (cookie transport)
 * const client = createSvcClient({ baseUrl: '/auth' });
 * await client.login({ identifier: 'ada@example.com' });
 * await client.sendLoginEmailOtp();
 * await client.verifyLoginEmailOtp({ verificationToken: '123456' });
 *
 * @example
 * // native app (bearer transport, tokens in secure storage)
 * const client = createSvcClient({ baseUrl: 'https://app.example.com/auth', transport: 'bearer', storage });
 * const { user } = await client.me();
 */
export function createSvcClient(opts: SvcClientOptions): SvcClient {
  if (!opts || typeof opts.baseUrl !== 'string' || opts.baseUrl === '') throw new TypeError('createSvcClient: baseUrl must be a non-empty string');
  const transport = opts.transport ?? 'cookie';
  if (transport !== 'cookie' && transport !== 'bearer') throw new TypeError('createSvcClient: transport must be "cookie" or "bearer"');
  const fetchFn: FetchLike | undefined = opts.fetch ?? (globalThis.fetch ? (i, init) => globalThis.fetch(i, init) : undefined);
  if (typeof fetchFn !== 'function') throw new TypeError('createSvcClient: no fetch available; pass options.fetch');
  const base = opts.baseUrl.replace(/\/+$/, '');
  const now = opts.now ?? Date.now;
  const bearer = transport === 'bearer';
  const index = routeIndex();
  const session = createSessionStore();
  let ephemeral: string | null = null;
  /** Bearer transport: flow bindings of OAuth flows started and not yet finished, by state. */
  const oauthBindings = new Map<string, string>();
  /** same_device (bearer): the binding of this client's pending magic link. */
  let magicLinkBinding: string | null = null;

  const send = (method: string, path: string, authorization: string | null, body: unknown, idempotencyKey?: string) =>
    exchange(fetchFn, {
      method,
      url: base + path,
      headers: {
        ...(bearer ? { 'x-svc-auth-transport': 'bearer', ...(authorization ? { authorization: `Bearer ${authorization}` } : {}) } : {}),
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
      body,
      ...(bearer ? {} : { credentials: 'include' as const }),
    });
  // One `Idempotency-Key` per refresh attempt, reused for its retries after a lost answer.
  const refreshAttempts = createRefreshAttempts();
  const sendRefresh = (refreshToken: string | null) =>
    refreshAttempts(refreshToken ?? 'cookie', (key) => send('POST', '/refresh', refreshToken, undefined, key));

  const auth = createBearerAuth({
    storage: opts.storage ?? memoryStorage(),
    key: opts.storageKey ?? 'svc-auth.tokens',
    now,
    leewayMs: (opts.refreshLeewaySeconds ?? 30) * 1000,
    session,
    callRefresh: async (refreshToken) => {
      const answer = await sendRefresh(refreshToken);
      if (!answer.body) throw invalidResponse(answer.status, 'empty refresh answer');
      return answer.body;
    },
  });

  async function withAccess(method: string, path: string, body: unknown, bridge: boolean) {
    if (!bearer) {
      try {
        return await send(method, path, null, body);
      } catch (e) {
        if (!(e instanceof SvcError) || e.status !== 401) throw e;
        // The TOTP bridge never refreshes (§5.12): `me` lets ensureCookies refresh, then one retry.
        if (bridge) return send('GET', '/users/me', null, undefined).then(() => send(method, path, null, body));
        session.signedOut('unauthorized');
        throw e;
      }
    }
    const token = await auth.accessToken();
    try {
      return await send(method, path, token, body);
    } catch (e) {
      if (!(e instanceof SvcError) || e.status !== 401) throw e;
      return send(method, path, await auth.afterUnauthorized(token), body);
    }
  }

  async function sessionResult(body: Record<string, unknown> | null) {
    if (!body) return null;
    if (body['mfaRequired'] === true) {
      if (bearer) {
        if (typeof body['token'] !== 'string') throw invalidResponse(200, 'MFA step without a token');
        ephemeral = body['token'];
      }
      return without(body, 'token');
    }
    if (typeof body['sub'] !== 'string') throw invalidResponse(200, 'session without sub');
    ephemeral = null;
    if (bearer) await auth.replace(tokensFrom(body, now()));
    else session.signedIn(userFrom(body, body['sub']), typeof body['organizationId'] === 'string' ? body['organizationId'] : null);
    return without(body, 'token', 'refreshToken');
  }

  async function call(name: RouteName, input: unknown): Promise<unknown> {
    const key = ROUTE_KEYS[name];
    const space = key.indexOf(' ');
    const method = key.slice(0, space);
    const template = key.slice(space + 1);
    const kind = index.get(key);
    if (!kind) throw new TypeError(`${name}: route ${key} is not mounted by the adapter`);
    if (kind.response === 'oauth-callback') input = withOAuthBinding(input);
    const { path, rest } = fillPath(template, checkArgs(name, template, input));
    if (kind.response === 'magic-verify' && magicLinkBinding && rest['binding'] === undefined) rest['binding'] = magicLinkBinding;
    const body = method === 'GET' ? undefined : rest;
    const url = method === 'GET' ? path + queryString(rest) : path;

    if (kind.response === 'refresh') {
      if (bearer) {
        await auth.load();
        return publicSession(await auth.refresh(), now());
      }
      try {
        return await sessionResult((await sendRefresh(null)).body);
      } catch (e) {
        if (e instanceof SvcError && e.status === 401) session.signedOut('invalid_refresh_token');
        throw e;
      }
    }
    let answer;
    try {
      answer =
        kind.cred === 'access'
          ? await withAccess(method, url, body, kind.response === 'bridge')
          : await send(method, url, kind.cred === 'none' ? null : ephemeral, body);
    } catch (e) {
      // Signing out without a live session is done, not an error (contract §5.3: logout is idempotent).
      const dead = e instanceof SvcError && (e.status === 401 || e.code === 'signed_out');
      if (kind.response !== 'logout' || !dead) throw e;
      answer = { status: 204, body: null };
    }
    return afterAnswer(kind.response, answer.body);
  }

  /**
   * Bearer transport: the callback carries the binding its start returned (kept here by state);
   * an app that persisted it across a restart passes `binding` itself. Cookie transport: the
   * adapter reads its cookie and ignores any body binding, so nothing is added.
   */
  function withOAuthBinding(input: unknown): unknown {
    if (!bearer || !isObject(input) || typeof input['state'] !== 'string') return input;
    const kept = oauthBindings.get(input['state']);
    oauthBindings.delete(input['state']);
    return input['binding'] === undefined && kept !== undefined ? { ...input, binding: kept } : input;
  }

  async function afterAnswer(response: string, body: Record<string, unknown> | null): Promise<unknown> {
    switch (response) {
      case 'login':
      case 'register':
      case 'ephemeral-renew':
        if (bearer) {
          if (!body || typeof body['token'] !== 'string') throw invalidResponse(200, 'pre-auth step without a token');
          ephemeral = body['token'];
        }
        return without(body, 'token');
      case 'session':
      case 'magic-check':
      case 'oauth-callback':
        return sessionResult(body);
      case 'oauth-start':
        if (bearer && body && typeof body['state'] === 'string' && typeof body['binding'] === 'string') {
          // A few pending flows at most; the oldest goes first (a state lives 10 minutes anyway).
          if (oauthBindings.size >= 16) oauthBindings.delete(oauthBindings.keys().next().value!);
          oauthBindings.set(body['state'], body['binding']);
        }
        return body;
      case 'magic-request':
        // same_device in bearer transport: this client asked, so this client's verify carries the binding.
        magicLinkBinding = bearer && typeof body?.['binding'] === 'string' ? body['binding'] : null;
        return body;
      case 'me': {
        const user = body?.['user'];
        if (!isObject(user) || typeof user['id'] !== 'string') throw invalidResponse(200, '`me` without a user');
        const org = user['activeOrganizationId'];
        if (!bearer) session.signedIn(userFrom(user, user['id']), typeof org === 'string' ? org : null);
        return body;
      }
      case 'logout':
      case 'delete-user':
        if (bearer) await auth.clear(response === 'logout' ? 'logout' : 'user_deleted');
        else session.signedOut(response === 'logout' ? 'logout' : 'user_deleted');
        return response === 'logout' ? undefined : body;
      case 'org-switch': {
        const cur = auth.current();
        if (bearer && cur) {
          if (!body || typeof body['token'] !== 'string' || typeof body['ttl'] !== 'number') throw invalidResponse(200, 'switch without a token');
          const organizationId = typeof body['organizationId'] === 'string' ? body['organizationId'] : null;
          await auth.replace({ ...cur, accessToken: body['token'], accessExpiresAtMs: now() + body['ttl'] * 1000, accessTtlMs: body['ttl'] * 1000, organizationId });
        } else if (!bearer && body && typeof body['sub'] === 'string') {
          session.signedIn(userFrom(body, body['sub']), typeof body['organizationId'] === 'string' ? body['organizationId'] : null);
        }
        return without(body, 'token');
      }
      default:
        return body;
    }
  }

  const client = {
    transport,
    confirmMagicLink: (token: string, number: number) => call('verifyMagicLink', { token, number }),
    session: { get: session.get, subscribe: session.subscribe } satisfies SessionStore,
    async restore(): Promise<SessionState> {
      if (bearer) await auth.load();
      else {
        try {
          await call('me', undefined);
        } catch (e) {
          if (!(e instanceof SvcError) || e.status !== 401) throw e;
        }
      }
      return session.get();
    },
  } as unknown as SvcClient;
  for (const name of Object.keys(ROUTE_KEYS) as RouteName[]) {
    (client as unknown as Record<string, unknown>)[name] = (input?: unknown) => call(name, input);
  }
  return client;
}

/** The session fields of a stored record (what `refresh()` resolves with in bearer transport; tokens stay inside). */
function publicSession(t: StoredTokens, nowMs: number) {
  const seconds = (atMs: number) => Math.max(0, Math.round((atMs - nowMs) / 1000));
  return {
    message: 'Success',
    sub: t.user.id,
    sessionId: t.sessionId,
    organizationId: t.organizationId,
    roles: t.user.roles,
    email: t.user.email,
    phone: t.user.phone,
    ttl: seconds(t.accessExpiresAtMs),
    refreshTtl: seconds(t.refreshExpiresAtMs),
  };
}

const checkArgs = (name: RouteName, template: string, input: unknown) => checkInput(name, template, input, FIELD_RULES[name] as Readonly<Record<string, string>> | undefined);
