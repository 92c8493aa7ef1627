/**
 * The client as a native app: bearer transport against the real adapter
 * (Hono, in process) and the real API, through an injected `fetch` that
 * records every call the app makes. Client and API share the manual clock
 * unless a test moves the client's own clock.
 */
import { createSvcClient, memoryStorage, type SvcClient, type SvcStorage } from '../../client/index.js';
import { makeHarness, settle, type Harness } from '../adapter/helpers.js';
import { captureSender } from '../helpers/capture-sender.js';
import { SoftwareAuthenticator } from '../helpers/software-authenticator.js';

export const BASE_URL = 'http://localhost:3000/auth';

export interface AppCall {
  method: string;
  path: string;
  headers: Headers;
}

export interface NativeApp {
  h: Harness;
  sender: ReturnType<typeof captureSender>;
  calls: AppCall[];
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  /** A client on `storage` (default: a fresh memory storage). */
  client(storage?: SvcStorage, now?: () => number): SvcClient;
}

export async function nativeApp(apiEnv: Record<string, string> = {}): Promise<NativeApp> {
  const sender = captureSender();
  const h = await makeHarness({}, apiEnv, { sender });
  const calls: AppCall[] = [];
  const fetchFn = async (input: string, init?: RequestInit) => {
    calls.push({ method: init?.method ?? 'GET', path: new URL(input).pathname, headers: new Headers(init?.headers) });
    return h.driver.request(input, init ?? {});
  };
  return {
    h,
    sender,
    calls,
    fetch: fetchFn,
    client: (storage = memoryStorage(), now = () => h.t.clock.now()) =>
      createSvcClient({ baseUrl: BASE_URL, transport: 'bearer', storage, fetch: fetchFn, now }),
  };
}

export const refreshCalls = (app: NativeApp) =>
  app.calls.filter((c) => c.method === 'POST' && c.path === '/auth/refresh').length;

/** Signs up with an email code the way an app does; returns the code used. */
export async function signUp(app: NativeApp, client: SvcClient, email: string) {
  await client.register({ email });
  await settle();
  const message = app.sender.sent.filter((m) => m.to === email && m.code).at(-1);
  if (!message?.code) throw new Error('no code was sent');
  return client.verifyEmailOtp({ verificationToken: message.code });
}

/** Enrols a software passkey through the client. */
export async function enrolPasskey(client: SvcClient) {
  const authenticator = await SoftwareAuthenticator.create();
  const options = await client.passkeyRegisterStart({});
  const attestationResponse = authenticator.register(options as never);
  const finish = await client.passkeyRegisterFinish({ attestationResponse, metadata: { friendlyName: 'Test phone' } });
  return { authenticator, finish };
}

/** A storage whose operations fail while the matching flag is set. */
export function flakyStorage() {
  const inner = memoryStorage();
  const fail = { get: false, set: false, delete: false };
  const writes: string[] = [];
  const storage: SvcStorage = {
    get: async (k) => {
      if (fail.get) throw new Error('keychain locked');
      return inner.get(k);
    },
    set: async (k, v) => {
      if (fail.set) throw new Error('disk full');
      writes.push(v);
      return inner.set(k, v);
    },
    delete: async (k) => {
      if (fail.delete) throw new Error('keystore unavailable');
      return inner.delete(k);
    },
  };
  return { storage, fail, writes, read: () => inner.get('svc-auth.tokens') };
}
