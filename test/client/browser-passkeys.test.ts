/**
 * `svc-auth/client/browser` against the real adapter + API, with the
 * browser's WebAuthn replaced by the software authenticator (the same one the
 * API tests use): registration, sign-in, conditional UI and PRF pass-through,
 * and the clear error when WebAuthn is missing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPasskeys } from '../../client/browser.js';
import { fromBase64Url, toBase64Url } from '../helpers/bytes.js';
import { SoftwareAuthenticator } from '../helpers/software-authenticator.js';
import { nativeApp, signUp } from './helpers.js';

const buf = (b64url: string) => new Uint8Array(fromBase64Url(b64url)).buffer;
const saved = {
  navigator: Object.getOwnPropertyDescriptor(globalThis, 'navigator'),
  pkc: (globalThis as any).PublicKeyCredential,
  document: (globalThis as any).document,
};

afterEach(() => {
  if (saved.navigator) Object.defineProperty(globalThis, 'navigator', saved.navigator);
  else delete (globalThis as any).navigator;
  (globalThis as any).PublicKeyCredential = saved.pkc;
  (globalThis as any).document = saved.document;
});

/** A browser whose `navigator.credentials` is the software authenticator; records what the page asked. */
function fakeBrowser(authenticator: SoftwareAuthenticator, prfOutput: ArrayBuffer | null) {
  const seen: { create: any[]; get: any[] } = { create: [], get: [] };
  const PKC = function PublicKeyCredential() {} as any;
  PKC.isConditionalMediationAvailable = async () => true;
  (globalThis as any).PublicKeyCredential = PKC;
  (globalThis as any).document = { querySelectorAll: () => [{}] };
  const credentials = {
    async create(options: any) {
      seen.create.push(options);
      const pk = options.publicKey;
      const json = authenticator.register(
        { challenge: toBase64Url(new Uint8Array(pk.challenge)), rp: pk.rp },
        { clientExtensionResults: { prf: { enabled: true } } },
      );
      return {
        id: json.id,
        rawId: buf(json.rawId),
        type: 'public-key',
        response: {
          clientDataJSON: buf(json.response.clientDataJSON),
          attestationObject: buf(json.response.attestationObject),
          getTransports: () => ['internal'],
        },
        authenticatorAttachment: 'platform',
        getClientExtensionResults: () => ({ prf: { enabled: true } }),
      };
    },
    async get(options: any) {
      seen.get.push(options);
      const pk = options.publicKey;
      const json = await authenticator.assert({ challenge: toBase64Url(new Uint8Array(pk.challenge)), rpId: pk.rpId });
      return {
        id: json.id,
        rawId: buf(json.rawId),
        type: 'public-key',
        response: {
          clientDataJSON: buf(json.response.clientDataJSON),
          authenticatorData: buf(json.response.authenticatorData),
          signature: buf(json.response.signature),
        },
        authenticatorAttachment: 'platform',
        getClientExtensionResults: () => (prfOutput ? { prf: { results: { first: prfOutput } } } : {}),
      };
    },
  };
  Object.defineProperty(globalThis, 'navigator', {
    value: { credentials, userAgent: 'fake' },
    configurable: true,
    writable: true,
  });
  return seen;
}

describe('client/browser: passkeys', () => {
  it('registers, then signs in with conditional UI and PRF: salts reach the authenticator as buffers, outputs reach the app only', async () => {
    const app = await nativeApp();
    const client = app.client();
    await signUp(app, client, 'hedy@example.com');
    const authenticator = await SoftwareAuthenticator.create();
    const prfOutput = crypto.getRandomValues(new Uint8Array(32)).buffer;
    const seen = fakeBrowser(authenticator, prfOutput);
    const passkeys = createPasskeys(client);
    expect(passkeys.supported()).toBe(true);
    const { credential } = await passkeys.register({ friendlyName: 'Laptop' });
    expect(credential).toMatchObject({ friendlyName: 'Laptop', prfCapable: true });

    const salt = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
    const fresh = app.client();
    const { session, prf } = await createPasskeys(fresh).signIn({
      identifier: 'hedy@example.com',
      conditional: true,
      prf: { salt },
    });
    expect(session).toMatchObject({ email: 'hedy@example.com' });
    expect(prf?.first).toBe(prfOutput);
    const get = seen.get.at(-1);
    expect(get.mediation).toBe('conditional');
    expect(get.publicKey.extensions.prf.eval.first).toBeInstanceOf(ArrayBuffer);
    expect(new Uint8Array(get.publicKey.extensions.prf.eval.first)).toEqual(fromBase64Url(salt));
    expect(fresh.session.get().status).toBe('signed-in');
  });

  it('without WebAuthn: webauthn_unavailable before any network call', async () => {
    (globalThis as any).PublicKeyCredential = undefined;
    const calls: string[] = [];
    const app = await nativeApp();
    const client = app.client();
    const before = app.calls.length;
    const passkeys = createPasskeys(client);
    expect(passkeys.supported()).toBe(false);
    await expect(passkeys.signIn({ identifier: 'x@example.com' })).rejects.toMatchObject({
      code: 'webauthn_unavailable',
      message: expect.stringMatching(/WebAuthn/),
    });
    await expect(passkeys.register()).rejects.toMatchObject({ code: 'webauthn_unavailable' });
    expect(app.calls.length).toBe(before);
    expect(calls).toHaveLength(0);
  });
});
