/**
 * The conformance suite's only view of the API: HTTP against the target's
 * base URL (`inject('conformance')`). Every flow sends a service token and
 * its own trusted client IP (`x-svc-client-ip`), as the adapter does, so the
 * per-IP flow limits of one case never reach the next; codes and links come
 * back in `delivery` (external delivery, contract §1.5).
 */
import { SignJWT } from 'jose';
import { expect, inject } from 'vitest';
import { SERVICE_SECRET } from './env.js';

export const ctx = inject('conformance');
export const base = ctx.base;

export interface Reply {
  status: number;
  body: any;
  headers: Headers;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  /** A raw body string sent as is (bad-input cases). */
  rawBody?: string;
  headers?: Record<string, string>;
  device?: Device;
  /** Ask for the code/link in the answer (external delivery). */
  external?: boolean;
}

export async function serviceToken(secret = SERVICE_SECRET): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  const jwt = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: 'dev-main' })
    .setIssuer('svc-adapter')
    .setAudience('svc-auth-api')
    .setSubject('svc-external-delivery')
    .setIssuedAt(iat)
    .setExpirationTime(iat + 60)
    .sign(new TextEncoder().encode(secret));
  return `Bearer ${jwt}`;
}

/** One client device: a trusted client IP in 10.0.0.0/8, never reused by another case file. */
export interface Device {
  ip: string;
}
let deviceCount = 0;
/** Addresses per case file: every file uses fewer devices than this. */
const DEVICES_PER_FILE = 4096;
/**
 * The file's block of addresses, from a hash of its path: stable across runs and distinct for every
 * file (4096 blocks of 4096 fill 10.0.0.0/8). A random block of 256 per file, as before, gave two files
 * the same addresses in ~40% of runs, and a per-IP limit one had spent refused the other's sign-ups.
 */
const fileBlock = (() => {
  const path = (expect.getState().testPath ?? String(Math.random())).replace(/^.*\/test\/conformance\//, '');
  let h = 0x811c9dc5;
  for (const c of path) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return h % DEVICES_PER_FILE;
})();
export function device(): Device {
  const n = fileBlock * DEVICES_PER_FILE + (++deviceCount % DEVICES_PER_FILE);
  return { ip: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` };
}

/** Requests `wrangler dev`'s proxy dropped before the worker saw them, sent again (see `call`). */
export let proxyRetries = 0;

export async function call(method: string, path: string, o: CallOptions = {}, at = base): Promise<Reply> {
  const d = o.device ?? device();
  const headers: Record<string, string> = {
    'x-svc-service-token': await serviceToken(),
    'x-svc-client-ip': d.ip,
    ...(o.external ? { 'x-svc-auth-delivery-mode': 'external' } : {}),
    ...(o.body !== undefined || o.rawBody !== undefined ? { 'content-type': 'application/json' } : {}),
    ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
    ...o.headers,
  };
  const send = () =>
    fetch(`${at}${path}`, {
      method,
      headers,
      body: o.rawBody ?? (o.body !== undefined ? JSON.stringify(o.body) : undefined),
    });
  let res = await send();
  let text = await res.text();
  // `wrangler dev`'s ProxyWorker answers this plain-text 503 when its connection to the worker drops
  // (kj's 5 s keep-alive timeout racing a new request: cloudflare/workers-sdk#14641, "worker never
  // restarted"); it retries GET/HEAD itself but not other methods. The request never reached our
  // worker, so it is sent again; our code never answers this text (every body is JSON).
  // Up to three times: under load the same race can drop the resent request too (seen once on D1).
  for (let i = 0; i < 3 && res.status === 503 && text.startsWith('Your worker restarted mid-request'); i++) {
    proxyRetries++;
    res = await send();
    text = await res.text();
  }
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: the assertion says so */
  }
  return { status: res.status, body, headers: res.headers };
}

/** Asserts the contract's error envelope: the status, `{error: code}` and JSON. */
export function expectError(r: Reply, status: number, code: string): void {
  expect({ status: r.status, error: r.body?.error }, JSON.stringify(r.body)).toEqual({ status, error: code });
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(JSON.stringify(r.body)).not.toMatch(/stack|at \w+ \(/);
}

export function expectOk(r: Reply, status = 200): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
}

let emailCount = 0;
export const uniqueEmail = (tag: string) =>
  `${tag}.${Date.now().toString(36)}${++emailCount}${Math.random().toString(36).slice(2, 6)}@conformance.test`;
let phoneCount = 0;
/** A valid E.164 number (San Francisco area code), random over 8 million so runs do not collide. */
export const uniquePhone = () =>
  `+1415${200 + ((++phoneCount * 7919 + Math.floor(Math.random() * 800)) % 800)}${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;

export interface Session {
  token: string;
  refreshToken: string;
  sub: string;
  sessionId: string;
  roles: string[];
  email: string;
  device: Device;
}

/** Registers `email` with an emailed code and returns its first session. */
export async function signUp(
  email = uniqueEmail('user'),
  d = device(),
  extra: Record<string, unknown> = {},
): Promise<Session> {
  const reg = await call('POST', '/registration/register', { device: d, external: true, body: { email, ...extra } });
  expectOk(reg);
  const verify = await call('POST', '/otp/verify-email-otp', {
    device: d,
    token: reg.body.token,
    body: { verificationToken: reg.body.delivery.code },
  });
  expectOk(verify);
  return { ...verify.body, email, device: d };
}

/** /login then generate-login-email-otp: the ephemeral token and the emailed code. */
export async function emailCodeFor(
  email: string,
  d = device(),
): Promise<{ token: string; code: string; device: Device }> {
  const login = await call('POST', '/login', { device: d, body: { identifier: email } });
  expectOk(login);
  const gen = await call('POST', '/otp/generate-login-email-otp', {
    device: d,
    external: true,
    token: login.body.token,
  });
  expectOk(gen);
  return { token: gen.body.token, code: gen.body.delivery.code, device: d };
}

/** Signs `email` in with an emailed code. */
export async function signInWithEmailCode(email: string, d = device()): Promise<Session> {
  const { token, code } = await emailCodeFor(email, d);
  const verify = await call('POST', '/otp/verify-login-email-otp', {
    device: d,
    token,
    body: { verificationToken: code },
  });
  expectOk(verify);
  return { ...verify.body, email, device: d };
}

/** A wrong email code for `code` (codes are 6 letters). */
export const wrongCode = (code: string) => (code === 'ZZZZZZ' ? 'YYYYYY' : 'ZZZZZZ');

/**
 * An admin: one of the OWNER_EMAIL addresses, granted `admin` on first
 * verification. Each case file takes its own index.
 */
export async function signUpOwner(index: number): Promise<Session> {
  return signUp(`owner${index}@conformance.test`);
}

/** Creates (or, given its id, replaces) an account at the OpenID provider. */
export async function providerAccount(
  claims: { email?: string; email_verified?: boolean; name?: string },
  existingId?: string,
): Promise<string> {
  const id = existingId ?? `acct-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const res = await fetch(`${ctx.oidcControl}/accounts/${id}`, { method: 'POST', body: JSON.stringify(claims) });
  expect(res.status).toBe(204);
  return id;
}

/** Logs in at the provider and consents; the code and state its redirect carries. */
export async function providerAuthorize(
  authorizationUrl: string,
  accountId: string,
): Promise<{ code: string; state: string }> {
  const res = await fetch(`${ctx.oidcControl}/authorize`, {
    method: 'POST',
    body: JSON.stringify({ authorizationUrl, accountId }),
  });
  const body = (await res.json()) as { code: string; state: string; error?: string };
  expect(res.status, body.error).toBe(200);
  return body;
}
