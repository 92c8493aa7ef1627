/** `createSvcClient`: the runtime-neutral client (Web `fetch` only, no DOM). */
import { ROUTES, TOTP_BRIDGE_ROUTES } from '../common/route-table.js';
import type { ChallengeTokenProvider } from './challenge.js';
import { call, type ClientContext, type Kind, type Send } from './client-calls.js';
import { invalidResponse, SvcError } from './errors.js';
import { exchange, type FetchLike } from './http.js';
import { ROUTE_KEYS, type RouteMethods, type RouteName } from './routes.js';
import { createRefreshAttempts } from './refresh-attempt.js';
import { createSessionStore, type SessionState, type SessionStore } from './session.js';
import type { MagicLinkVerified } from './wire.js';
import { createBearerAuth, memoryStorage, type SvcStorage } from './tokens.js';

export interface SvcClientOptions {
  /** The adapter's mount URL, e.g. `https://app.example.com/auth` (or `/auth` in a browser page). */
  baseUrl: string;
  /**
   * `cookie` (browsers, default): the adapter keeps the tokens in cookies.
   * `bearer` (native apps): the client keeps them.
   */
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
  /**
   * Bot protection: called before the sign-in start, the registration and
   * each code or link send; its token goes in `x-svc-challenge-token`
   * (docs/bot-protection.md). Read `botProtection` of `publicConfig()` to know
   * whether and where one is needed.
   */
  challengeToken?: ChallengeTokenProvider;
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

function routeIndex(): Map<string, Kind> {
  const index = new Map<string, Kind>();
  for (const r of ROUTES) index.set(`${r.method} ${r.path}`, r);
  for (const r of TOTP_BRIDGE_ROUTES)
    index.set(`${r.method} /totp${r.path}`, {
      cred: r.cred,
      response: r.response === 'session' ? 'session' : 'bridge',
    });
  return index;
}

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
  const { transport, fetchFn } = checkOptions(opts);
  const ctx = createContext(opts, transport === 'bearer', fetchFn);
  const client = {
    transport,
    confirmMagicLink: (token: string, number: number) => call(ctx, 'verifyMagicLink', { token, number }),
    session: { get: ctx.session.get, subscribe: ctx.session.subscribe } satisfies SessionStore,
    restore: () => restore(ctx),
  } as unknown as SvcClient;
  for (const name of Object.keys(ROUTE_KEYS) as RouteName[]) {
    (client as unknown as Record<string, unknown>)[name] = (input?: unknown) => call(ctx, name, input);
  }
  return client;
}

/** Misconfiguration throws at construction, naming the option. */
function checkOptions(opts: SvcClientOptions): { transport: 'cookie' | 'bearer'; fetchFn: FetchLike } {
  if (!opts || typeof opts.baseUrl !== 'string' || opts.baseUrl === '')
    throw new TypeError('createSvcClient: baseUrl must be a non-empty string');
  const transport = opts.transport ?? 'cookie';
  if (transport !== 'cookie' && transport !== 'bearer')
    throw new TypeError('createSvcClient: transport must be "cookie" or "bearer"');
  const fetchFn: FetchLike | undefined =
    opts.fetch ?? (globalThis.fetch ? (i, init) => globalThis.fetch(i, init) : undefined);
  if (typeof fetchFn !== 'function') throw new TypeError('createSvcClient: no fetch available; pass options.fetch');
  return { transport, fetchFn };
}

function createContext(opts: SvcClientOptions, bearer: boolean, fetchFn: FetchLike): ClientContext {
  const now = opts.now ?? Date.now;
  const session = createSessionStore();
  const send = createSend(fetchFn, opts.baseUrl.replace(/\/+$/, ''), bearer);
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
  return {
    bearer,
    now,
    index: routeIndex(),
    session,
    auth,
    send,
    sendRefresh,
    ephemeral: null,
    oauthBindings: new Map(),
    magicLinkBinding: null,
    challengeToken: opts.challengeToken,
  };
}

/** Bearer transport names itself and sends the token as `Authorization`; cookie transport sends the cookies. */
function createSend(fetchFn: FetchLike, base: string, bearer: boolean): Send {
  return (method, path, authorization, body, idempotencyKey, extra) =>
    exchange(fetchFn, {
      method,
      url: base + path,
      headers: {
        ...(bearer
          ? { 'x-svc-auth-transport': 'bearer', ...(authorization ? { authorization: `Bearer ${authorization}` } : {}) }
          : {}),
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        ...extra,
      },
      body,
      ...(bearer ? {} : { credentials: 'include' as const }),
    });
}

async function restore(ctx: ClientContext): Promise<SessionState> {
  if (ctx.bearer) await ctx.auth.load();
  else {
    try {
      await call(ctx, 'me', undefined);
    } catch (e) {
      if (!(e instanceof SvcError) || e.status !== 401) throw e;
    }
  }
  return ctx.session.get();
}
