/** Passkey ceremonies over HTTP, answered by the software authenticator of the test helpers. */
import { SoftwareAuthenticator, type CeremonyOverrides } from '../helpers/software-authenticator.js';
import { call, type Device, type Reply } from './client.js';

export { SoftwareAuthenticator };

export async function registerPasskey(
  token: string,
  o: {
    authenticator?: SoftwareAuthenticator;
    over?: CeremonyOverrides;
    device?: Device;
    metadata?: Record<string, unknown>;
  } = {},
): Promise<{ authenticator: SoftwareAuthenticator; start: Reply; finish: Reply }> {
  const authenticator = o.authenticator ?? (await SoftwareAuthenticator.create());
  const start = await call('POST', '/webauthn/register/start', {
    token,
    body: {},
    ...(o.device ? { device: o.device } : {}),
  });
  if (start.status !== 200) return { authenticator, start, finish: start };
  const attestationResponse = authenticator.register(start.body, o.over);
  const finish = await call('POST', '/webauthn/register/finish', {
    token,
    body: { attestationResponse, ...(o.metadata ? { metadata: o.metadata } : {}) },
    ...(o.device ? { device: o.device } : {}),
  });
  return { authenticator, start, finish };
}

/** An assertion ceremony against `<prefix>/start` and `<prefix>/finish`. */
export async function assertWith(
  prefix: '/webauthn/login' | '/step-up/webauthn',
  token: string,
  authenticator: SoftwareAuthenticator,
  over: CeremonyOverrides = {},
  d?: Device,
): Promise<{ start: Reply; finish: Reply }> {
  const dev = d ? { device: d } : {};
  const start = await call('POST', `${prefix}/start`, { token, body: {}, ...dev });
  if (start.status !== 200) return { start, finish: start };
  const assertionResponse = await authenticator.assert(start.body, over);
  const finish = await call('POST', `${prefix}/finish`, { token, body: { assertionResponse }, ...dev });
  return { start, finish };
}

/** /login for `email`, then a passkey assertion: the login answer. */
export async function passkeyLogin(
  email: string,
  authenticator: SoftwareAuthenticator,
  over: CeremonyOverrides = {},
  d?: Device,
) {
  const login = await call('POST', '/login', {
    body: { identifier: email, passkeyAvailable: true },
    ...(d ? { device: d } : {}),
  });
  return assertWith('/webauthn/login', login.body.token, authenticator, over, d);
}
