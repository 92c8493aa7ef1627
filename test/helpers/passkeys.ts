/** Passkey ceremonies through the real API, driven by the software authenticator. */
import { signEphemeralToken } from '../../src/crypto/jwt.js';
import { randomId } from '../../src/crypto/random.js';
import type { CallResult, TestApi } from './make-app.js';
import { SoftwareAuthenticator, type CeremonyOverrides } from './software-authenticator.js';

/** A `ctx:"login"` token as `/login` would mint it (subject: a user id or a decoy subject). */
export function loginToken(t: TestApi, subject: string, idt: 'email' | 'phone' = 'email'): Promise<string> {
  return signEphemeralToken(
    t.api.deps.keys,
    { sub: subject, ctx: 'login', idt, jti: randomId() },
    { issuer: t.api.deps.env.issuer, nowMs: t.clock.now() },
  );
}

export async function registerPasskey(
  t: TestApi,
  accessToken: string,
  opts: {
    authenticator?: SoftwareAuthenticator;
    over?: CeremonyOverrides;
    start?: Record<string, unknown>;
    metadata?: Record<string, unknown>;
  } = {},
): Promise<{ authenticator: SoftwareAuthenticator; start: CallResult; finish: CallResult }> {
  const authenticator = opts.authenticator ?? (await SoftwareAuthenticator.create());
  const start = await t.call('POST', '/webauthn/register/start', { token: accessToken, body: opts.start ?? {} });
  if (start.status !== 200) return { authenticator, start, finish: start };
  const attestationResponse = authenticator.register(start.body, opts.over);
  const finish = await t.call('POST', '/webauthn/register/finish', {
    token: accessToken,
    body: { attestationResponse, ...(opts.metadata ? { metadata: opts.metadata } : {}) },
  });
  return { authenticator, start, finish };
}

/** Runs an assertion ceremony against `<prefix>/start` and `<prefix>/finish`. */
export async function assertWith(
  t: TestApi,
  prefix: '/webauthn/login' | '/step-up/webauthn',
  token: string,
  authenticator: SoftwareAuthenticator,
  over: CeremonyOverrides = {},
  startBody: Record<string, unknown> = {},
): Promise<{ start: CallResult; finish: CallResult }> {
  const start = await t.call('POST', `${prefix}/start`, { token, body: startBody });
  if (start.status !== 200) return { start, finish: start };
  const assertionResponse = await authenticator.assert(start.body, over);
  const finish = await t.call('POST', `${prefix}/finish`, { token, body: { assertionResponse } });
  return { start, finish };
}
