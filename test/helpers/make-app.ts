import type { Context } from 'hono';
/**
 * `makeApi()` builds a real auth API on a fresh in-memory libSQL database
 * (or a given client/URL) with a manual clock, and returns helpers to call it
 * in-process through `app.request`.
 */
import { createClient, type Client } from '@libsql/client';
import { createManualClock } from '../../src/clock.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { signingKeys } from '../../src/db/schema.js';
import { wrapClient } from '../../src/db/client.js';
import { createAuthApi, type AuthApi } from '../../src/index.js';
import { createLogger, type LogLevel } from '../../src/log.js';
import type { MessageSender } from '../../src/services/delivery/index.js';
import { testSigningKey } from './keys.js';

export const TEST_ISSUER = 'http://auth.test';
export const TEST_SERVICE_TOKEN = 'test-service-token-0123456789abcdef-0123456789';

export const baseEnv: Record<string, string> = {
  ISSUER: TEST_ISSUER,
  API_SERVICE_TOKEN: TEST_SERVICE_TOKEN,
  APP_NAME: 'svc test',
  DEFAULT_ROLES: 'user',
  AVAILABLE_ROLES: 'user,admin,admin:read,admin:write',
  LOGIN_METHODS: 'passkey,magic_link,email_otp,phone_otp',
  ACCESS_TOKEN_TTL: '15m',
  REFRESH_TOKEN_TTL: '1d',
  RATE_LIMIT: '100000',
  DELAY_AFTER: '0',
  RPID: 'localhost',
  ORIGINS: 'http://localhost:3000',
  LOGIN_RESPONSE_FLOOR_MS: '0',
};

export interface TestApi {
  api: AuthApi;
  clock: ReturnType<typeof createManualClock>;
  logs: { level: LogLevel; line: string }[];
  client: Client;
  call: (method: string, path: string, opts?: CallOptions) => Promise<CallResult>;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  body: any;
  headers: Headers;
}

/** Creates a libSQL client with migrations and the shared test signing key applied. */
export async function prepareClient(url = ':memory:'): Promise<Client> {
  const client = createClient({ url, intMode: 'number' });
  if (url.startsWith('file:')) {
    await client.execute('PRAGMA journal_mode = WAL');
    await client.execute('PRAGMA busy_timeout = 5000');
    // The same per-connection settings as openDatabase (WAL + NORMAL: no fsync per commit).
    await client.execute('PRAGMA synchronous = NORMAL');
  }
  await client.execute('PRAGMA foreign_keys = ON');
  await applyMigrations(client);
  const { privatePem, publicPem } = await testSigningKey();
  await wrapClient(client, 'file')
    .db.insert(signingKeys)
    .values({ kid: 'dev-main', privatePem, publicPem, createdAt: new Date() })
    .onConflictDoNothing();
  return client;
}

export async function makeApi(
  opts: {
    env?: Record<string, string | undefined>;
    client?: Client;
    clockStartMs?: number;
    sender?: MessageSender | null;
    /** The socket address the runtime reports (src/node.ts, src/bun.ts pass theirs). */
    connectionIp?: (c: Context) => string | undefined;
  } = {},
): Promise<TestApi> {
  const clock = createManualClock(opts.clockStartMs ?? Date.now());
  const logs: { level: LogLevel; line: string }[] = [];
  const client = opts.client ?? (await prepareClient());
  const api = await createAuthApi({
    env: { ...baseEnv, ...opts.env },
    clock,
    client,
    logger: createLogger((level, line) => logs.push({ level, line }), 'debug'),
    ...(opts.sender !== undefined ? { sender: opts.sender } : {}),
    ...(opts.connectionIp ? { connectionIp: opts.connectionIp } : {}),
  });
  const call = async (method: string, path: string, o: CallOptions = {}): Promise<CallResult> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers['authorization'] = `Bearer ${o.token}`;
    let body: string | undefined;
    if (o.rawBody !== undefined) body = o.rawBody;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] = 'application/json';
    }
    const res = await api.request(path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return { api, clock, logs, client, call };
}
