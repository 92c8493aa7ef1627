/**
 * The flows `npm run bench:peers` drives through the `node:http` keep-alive
 * client (bench/lib/http-client.ts): svc's sign-up, its email-code sign-in and
 * "continue with email" through the adapter, and Better Auth's email-OTP
 * sign-in. Codes come from each app's in-memory outbox (`GET /bench/otp`).
 * Shared by `npm run bench:peers` and bench/profile-sign-in.ts.
 */
import { CookieJar, createHttpClient } from './http-client.js';
import { BENCH_APP_ORIGIN } from './svc.js';

export const client = createHttpClient(64);
export const origin = { origin: BENCH_APP_ORIGIN };

export async function code(base: string, email: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const r = await client.call(`${base}/bench/otp?email=${encodeURIComponent(email)}`);
    const c = (JSON.parse(r.text) as { code: string | null }).code;
    if (c) return c;
    await new Promise((res) => setTimeout(res, 2)); // the adapter delivers after answering
  }
  throw new Error(`no code delivered to ${email}`);
}

export function ok(r: { status: number; text: string }, what: string) {
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 200)}`);
}

/** svc: sign-up by email code through the adapter; returns the cookie jar of the session. */
export async function svcSignUp(app: string, email: string): Promise<CookieJar> {
  const jar = new CookieJar();
  const reg = await client.call(`${app}/auth/registration/register`, {
    method: 'POST',
    headers: origin,
    json: { email },
  });
  ok(reg, 'svc register');
  jar.update(reg.setCookies);
  const verify = await client.call(`${app}/auth/otp/verify-email-otp`, {
    method: 'POST',
    headers: { ...origin, cookie: jar.header() },
    json: { verificationToken: await code(app, email) },
  });
  ok(verify, 'svc verify-email-otp');
  return jar.update(verify.setCookies);
}

/** svc: email-code sign-in of an existing user, end to end (login, code, verify, session cookies). */
export async function svcSignIn(app: string, email: string): Promise<void> {
  const jar = new CookieJar();
  const login = await client.call(`${app}/auth/login`, {
    method: 'POST',
    headers: origin,
    json: { identifier: email },
  });
  ok(login, 'svc login');
  jar.update(login.setCookies);
  const gen = await client.call(`${app}/auth/otp/generate-login-email-otp`, {
    method: 'POST',
    headers: { ...origin, cookie: jar.header() },
    json: {},
  });
  ok(gen, 'svc generate-login-email-otp');
  jar.update(gen.setCookies);
  const verify = await client.call(`${app}/auth/otp/verify-login-email-otp`, {
    method: 'POST',
    headers: { ...origin, cookie: jar.header() },
    json: { verificationToken: await code(app, email) },
  });
  ok(verify, 'svc verify-login-email-otp');
  if (!jar.update(verify.setCookies).has('svc-access')) throw new Error('svc sign-in set no session');
}

/**
 * svc: "continue with email" for an existing verified user — `POST /auth/registration/register`
 * sends a code to the address on file and verifying it is a sign-in by email possession (contract §3.3,
 * §3.4). Two steps, like Better Auth's flow, which also creates the user on first use.
 */
export async function svcContinueWithEmail(app: string, email: string): Promise<void> {
  const jar = await svcSignUp(app, email);
  if (!jar.has('svc-access')) throw new Error('svc continue-with-email set no session');
}

/** Better Auth: email-OTP sign-in (creates the user on first use); returns the session cookies. */
export async function baSignIn(ba: string, email: string): Promise<CookieJar> {
  const send = await client.call(`${ba}/api/auth/email-otp/send-verification-otp`, {
    method: 'POST',
    headers: origin,
    json: { email, type: 'sign-in' },
  });
  ok(send, 'BA send-verification-otp');
  const signIn = await client.call(`${ba}/api/auth/sign-in/email-otp`, {
    method: 'POST',
    headers: origin,
    json: { email, otp: await code(ba, email) },
  });
  ok(signIn, 'BA sign-in/email-otp');
  const jar = new CookieJar().update(signIn.setCookies);
  if (!jar.has('better-auth.session_token')) throw new Error('BA sign-in set no session');
  return jar;
}

/** A pool handing each concurrent worker its own item (user, chain). */
export function pool<T>(items: T[], use: (item: T) => Promise<void>): () => Promise<void> {
  const free = [...items];
  return async () => {
    const item = free.pop()!;
    try {
      await use(item);
    } finally {
      free.push(item);
    }
  };
}

/** Waits for a server process to print `listening on <url>`; resolves with its base URL. */
export async function listening(
  proc: { output(): string; child: { exitCode: number | null } },
  what: string,
): Promise<string> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(proc.output());
    if (m) return m[1]!;
    if (proc.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not start:\n${proc.output()}`);
}
