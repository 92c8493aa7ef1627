/**
 * Adapter test harness: a real in-process auth API (makeApi) behind the real
 * adapter, wired through the injected `fetch`, sharing the API's manual clock.
 * `upstream` records every call the adapter makes. The adapter is Hono by
 * default; `mount` swaps in another framework (the Express parity suite).
 */
import { Hono } from 'hono';
import { createCookieCodec } from '../../adapter/core/cookies.js';
import type { CookiePayload } from '../../common/contract.js';
import type { SvcAdapterOptions } from '../../adapter/core/options.js';
import type { RequireAuthOptions } from '../../adapter/core/user.js';
import type { AuthMessage } from '../../common/messaging.js';
import type { MessageSender } from '../../src/services/delivery/index.js';
import {
  getUser,
  requireAuth,
  requireRole,
  svcAdapter,
  svcTotpBridge,
  type SvcVariables,
} from '../../adapter/hono/index.js';
import { createUser, signIn } from '../helpers/factories.js';
import { makeApi, TEST_ISSUER, TEST_SERVICE_TOKEN, type TestApi } from '../helpers/make-app.js';

export const APP_ORIGIN = 'http://localhost:3000';
export const COOKIE_SECRET = 'adapter-cookie-secret-0123456789-abcdefghij';

export interface UpstreamCall {
  method: string;
  path: string;
  headers: Headers;
  body: string | undefined;
}

/** How a harness reaches its adapter: in memory (Hono `app.request`) or over a real port (Express). */
export interface Driver {
  request(path: string, init: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Mounts the adapter at `/auth`, the TOTP bridge at `/auth/totp`, and the
 * guarded app routes `/app`, `/admin`, `/profile`.
 */
export type Mount = (opts: SvcAdapterOptions, guard: RequireAuthOptions) => Promise<Driver>;

export const honoMount: Mount = async (opts, guard) => {
  const app = new Hono<{ Variables: SvcVariables }>();
  app.route('/auth', svcAdapter(opts));
  app.route('/auth/totp', svcTotpBridge(opts));
  const auth = requireAuth(guard);
  app.get('/app', auth, (c) => c.json({ user: c.get('user') }));
  app.get('/admin', auth, requireRole('admin:read'), (c) => c.json({ ok: true }));
  app.get('/profile', async (c) => c.json({ me: await getUser(c, opts) }));
  app.notFound((c) => c.json({ error: 'not_found' }, 404));
  return { request: async (path, init) => app.request(path, init), close: async () => {} };
};

export interface Harness {
  t: TestApi;
  driver: Driver;
  opts: SvcAdapterOptions;
  upstream: UpstreamCall[];
  logs: { level: string; line: string }[];
  /** Replaces the upstream answer for matching calls (simulated failures only). */
  intercept: ((call: UpstreamCall) => Promise<Response | undefined> | Response | undefined) | null;
  send(method: string, path: string, init?: SendInit): Promise<SendResult>;
  cookie(payload: CookiePayload, maxAge: number, name?: string): string;
}

export interface SendInit {
  cookies?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** Another driver to send through (a second adapter on the same API and fetch). */
  via?: Driver;
}

export interface SendResult {
  status: number;
  body: any;
  text: string;
  setCookies: string[];
  /** Cookie name → value after applying Set-Cookie (empty string = cleared). */
  cookies: Record<string, string>;
  headers: Headers;
}

export async function makeHarness(
  over: Partial<SvcAdapterOptions> = {},
  apiEnv: Record<string, string> = {},
  { mount = honoMount, ...api }: { sender?: MessageSender | null; clockStartMs?: number; mount?: Mount } = {},
): Promise<Harness> {
  const t = await makeApi({ env: apiEnv, ...api });
  const upstream: UpstreamCall[] = [];
  const logs: { level: string; line: string }[] = [];
  const h = { intercept: null } as Harness;
  const fetchFn = async (input: string, init?: RequestInit) => {
    const url = new URL(input);
    const call: UpstreamCall = {
      method: init?.method ?? 'GET',
      path: url.pathname + url.search,
      headers: new Headers(init?.headers),
      body: init?.body as string | undefined,
    };
    upstream.push(call);
    const replaced = h.intercept ? await h.intercept(call) : undefined;
    return replaced ?? t.api.request(input, init);
  };
  const opts: SvcAdapterOptions = {
    authServerUrl: TEST_ISSUER,
    cookieSecret: COOKIE_SECRET,
    serviceSecret: TEST_SERVICE_TOKEN,
    issuer: APP_ORIGIN,
    audience: TEST_ISSUER,
    fetch: fetchFn,
    now: () => t.clock.now(),
    resolveClientIp: () => '198.51.100.23',
    log: (level, line) => logs.push({ level, line }),
    ...over,
  };
  const guard: RequireAuthOptions = {
    cookieSecret: COOKIE_SECRET,
    issuer: APP_ORIGIN,
    authServerUrl: TEST_ISSUER,
    audience: TEST_ISSUER,
    fetch: fetchFn,
    now: () => t.clock.now(),
  };
  const driver = await mount(opts, guard);
  const codec = createCookieCodec(COOKIE_SECRET, APP_ORIGIN);
  Object.assign(h, {
    t,
    driver,
    opts,
    upstream,
    logs,
    async send(method: string, path: string, init: SendInit = {}) {
      const headers: Record<string, string> = { 'user-agent': 'adapter-test', ...init.headers };
      if (init.cookies && Object.keys(init.cookies).length)
        headers['cookie'] = Object.entries(init.cookies)
          .map(([k, v]) => `${k}=${v}`)
          .join('; ');
      let body: string | undefined = init.rawBody;
      if (init.body !== undefined) {
        body = JSON.stringify(init.body);
        headers['content-type'] = 'application/json';
      }
      const res = await (init.via ?? driver).request(path, { method, headers, body });
      const text = await res.text();
      const setCookies = res.headers.getSetCookie();
      const cookies: Record<string, string> = { ...init.cookies };
      for (const sc of setCookies) {
        const [pair] = sc.split(';');
        const eq = pair!.indexOf('=');
        const name = pair!.slice(0, eq);
        const value = pair!.slice(eq + 1);
        if (value === '') delete cookies[name];
        else cookies[name] = value;
      }
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = text;
      }
      return { status: res.status, body: parsed, text, setCookies, cookies, headers: res.headers };
    },
    cookie: (payload: CookiePayload, maxAge: number) => codec.sign(payload, maxAge, t.clock.now()),
  });
  return h;
}

/** A signed-in user and browser cookies holding only its refresh token (what a returning browser has). */
export async function refreshOnlyBrowser(h: Harness, fields: Parameters<typeof createUser>[1] = {}) {
  const user = await createUser(h.t, fields);
  const env = await signIn(h.t, user);
  const cookies = {
    'svc-refresh': h.cookie({ kind: 'refresh', sub: user.id, refreshToken: env.refreshToken }, env.refreshTtl),
  };
  return { user, env, cookies };
}

/** A signed-in user and browser cookies holding a valid access and refresh cookie. */
export async function signedInBrowser(h: Harness, fields: Parameters<typeof createUser>[1] = {}) {
  const user = await createUser(h.t, fields);
  const env = await signIn(h.t, user);
  const cookies = {
    'svc-access': h.cookie(
      {
        kind: 'access',
        sub: user.id,
        sessionId: env.sessionId,
        token: env.token,
        roles: env.roles,
        email: env.email,
        phone: env.phone,
        organizationId: env.organizationId,
      },
      env.ttl,
    ),
    'svc-refresh': h.cookie({ kind: 'refresh', sub: user.id, refreshToken: env.refreshToken }, env.refreshTtl),
  };
  return { user, env, cookies };
}

/** Upstream calls other than JWKS fetches. */
export const upstreamPaths = (h: Harness) =>
  h.upstream.filter((c) => !c.path.startsWith('/.well-known/')).map((c) => `${c.method} ${c.path}`);

/** Messaging options whose handlers record every message (the dev handler of a real app). */
export function recordingMessaging(opts: { fail?: boolean } = {}) {
  const messages: AuthMessage[] = [];
  const handler = async (m: AuthMessage) => {
    messages.push(m);
    if (opts.fail) throw new Error(`provider refused ${m.to}`);
    return { accepted: true, provider: 'test', channel: m.channel };
  };
  return {
    messages,
    messaging: {
      handlers: { otpEmail: handler, otpSms: handler, magicLinkEmail: handler, organizationInvitationEmail: handler },
    },
  };
}

/** Lets deliveries (started after the response, not awaited) settle. */
export const settle = () => new Promise((r) => setTimeout(r, 20));
